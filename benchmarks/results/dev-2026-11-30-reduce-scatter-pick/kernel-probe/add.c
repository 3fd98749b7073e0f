#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
static double now(){struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec+t.tv_nsec*1e-9;}
int main(int c, char**v){ long n=atol(v[1]); float *x=aligned_alloc(64,n*4),*y=aligned_alloc(64,n*4),*d=aligned_alloc(64,n*4);
 for(long i=0;i<n;i++){x[i]=i;y[i]=1;d[i]=0;}
 for(int rep=0;rep<4;rep++){ long it=200000000/n; if(it<5)it=5; double t=now(); for(long k=0;k<it;k++){ for(long i=0;i<n;i++) d[i]=x[i]+y[i]; __asm__ volatile(""::"r"(d):"memory");} double s=(now()-t)/it; printf("C add %ld floats: %.1f us %.2f GB/s out\n",n,s*1e6,n*4/s/1e9);}
 for(int rep=0;rep<2;rep++){ long it=200000000/n; if(it<5)it=5; double t=now(); for(long k=0;k<it;k++){ for(long i=0;i<n;i++) x[i]+=y[i]; __asm__ volatile(""::"r"(x):"memory");} double s=(now()-t)/it; printf("C inplace %ld floats: %.1f us %.2f GB/s out\n",n,s*1e6,n*4/s/1e9);}
}
