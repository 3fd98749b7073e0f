// All-to-All between forked processes, to see what one copy a byte could give the shared-memory transport: each
// rank's threads read their blocks straight out of the peers' send buffers through /proc/PID/mem (pread, what a
// JVM can do through a FileChannel) or process_vm_readv (CMA, Open MPI's single copy; a JVM calls it through
// java.lang.foreign from JDK 22), or (two) copy through a shared staging area in pieces as jcoll's slots do.
//   a2a MODE(procmem|cma|two) RANKS THREADS MB ITERS   -> one line: mode ranks threads MB us/call busbw GB/s
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <stdint.h>
#define SLOT (256 * 1024)
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
typedef struct { pthread_barrier_t bar, ranks; pid_t pid[64]; uintptr_t send[64]; double elapsed; } Shared;
static Shared*S; static char*stage; static int N,T,R,mode,me; static size_t size,blk; static char*sendb,*recvb; static int fds[64];
static void fail(const char*w){perror(w);exit(1);}
static void*work(void*arg){
  int t=(int)(intptr_t)arg; size_t part=(blk+T-1)/T, lo=t*part>blk?blk:t*part, hi=lo+part>blk?blk:lo+part;
  double t0=0;
  for(int it=0;it<R+3;it++){
    if(it==3){pthread_barrier_wait(&S->bar); t0=now();}
    pthread_barrier_wait(&S->bar);
    if(mode==2){ // two copies: pieces of SLOT/N per peer through each rank's staging slot
      size_t piece=SLOT/N;
      for(size_t off=0;off<blk;off+=piece){
        size_t len=blk-off<piece?blk-off:piece, plo=len*t/T, phi=len*(t+1)/T;
        char*mine=stage+(size_t)me*SLOT;
        for(int p=0;p<N;p++) if(p!=me) memcpy(mine+p*piece+plo,sendb+p*blk+off+plo,phi-plo);
        pthread_barrier_wait(&S->bar);
        for(int p=0;p<N;p++) if(p!=me) memcpy(recvb+p*blk+off+plo,stage+(size_t)p*SLOT+me*piece+plo,phi-plo);
        pthread_barrier_wait(&S->bar);
      }
    } else {
      for(int k=1;k<N;k++){ int p=(me+k)%N; if(hi<=lo)break;
        uintptr_t src=S->send[p]+me*blk+lo;
        if(mode==0){ size_t done=0; while(done<hi-lo){ ssize_t r=pread(fds[p],recvb+p*blk+lo+done,hi-lo-done,(off_t)(src+done)); if(r<=0)fail("pread"); done+=r; } }
        else { struct iovec l={recvb+p*blk+lo,hi-lo}, rr={(void*)src,hi-lo}; if(process_vm_readv(S->pid[p],&l,1,&rr,1,0)!=(ssize_t)(hi-lo)) fail("process_vm_readv"); }
      }
    }
    memcpy(recvb+me*blk+lo,sendb+me*blk+lo,hi-lo);
    pthread_barrier_wait(&S->bar);
  }
  if(t==0&&me==0) S->elapsed=now()-t0;
  return 0;
}
int main(int argc,char**argv){
  if(argc<6){fprintf(stderr,"a2a MODE RANKS THREADS MB ITERS\n");return 2;}
  mode=!strcmp(argv[1],"procmem")?0:!strcmp(argv[1],"cma")?1:2; N=atoi(argv[2]); T=atoi(argv[3]);
  size=(size_t)(atof(argv[4])*1048576); R=atoi(argv[5]); size-=size%(N*64); blk=size/N;
  S=mmap(0,sizeof(Shared),PROT_READ|PROT_WRITE,MAP_SHARED|MAP_ANONYMOUS,-1,0);
  stage=mmap(0,(size_t)N*SLOT,PROT_READ|PROT_WRITE,MAP_SHARED|MAP_ANONYMOUS,-1,0);
  pthread_barrierattr_t a; pthread_barrierattr_init(&a); pthread_barrierattr_setpshared(&a,PTHREAD_PROCESS_SHARED);
  pthread_barrier_init(&S->bar,&a,N*T); // every worker thread of every rank
  pthread_barrier_init(&S->ranks,&a,N);
  for(int r=0;r<N;r++){ if(fork()==0){ me=r; break; } if(r==N-1){ for(int i=0;i<N;i++) wait(0);
      printf("%s %d %d %s %.1f %.2f\n",argv[1],N,T,argv[4],S->elapsed/R*1e6,(double)size/(S->elapsed/R)*(N-1)/N/1e9); return 0; } }
  sendb=aligned_alloc(4096,size); recvb=aligned_alloc(4096,size); memset(sendb,me+1,size); memset(recvb,0,size);
  S->pid[me]=getpid(); S->send[me]=(uintptr_t)sendb;
  pthread_barrier_wait(&S->ranks);
  // Every rank's pid and address are in S now (a second wait so no one reads before all have written)
  for(int p=0;p<N;p++){ char path[64]; sprintf(path,"/proc/%d/mem",S->pid[p]); if(p!=me&&mode==0&&(fds[p]=open(path,O_RDONLY))<0) fail(path); }
  pthread_t th[64]; for(int t=0;t<T;t++) pthread_create(&th[t],0,work,(void*)(intptr_t)t);
  for(int t=0;t<T;t++) pthread_join(th[t],0);
  for(int p=0;p<N;p++) if(recvb[p*blk]!=p+1||recvb[p*blk+blk-1]!=p+1){fprintf(stderr,"rank %d: wrong block from %d\n",me,p);return 1;}
  return 0;
}
