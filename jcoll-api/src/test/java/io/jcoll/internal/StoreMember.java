package io.jcoll.internal;

import io.jcoll.bootstrap.StoreClient;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** A rank's process that only holds its store connection, for a test to kill: {@code port token rank size}. */
public final class StoreMember {

    private StoreMember() {
    }

    public static void main(String[] args) throws Exception {
        StoreClient client = StoreClient.connect(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[0])),
                args[1].getBytes(StandardCharsets.UTF_8), Integer.parseInt(args[2]), Integer.parseInt(args[3]),
                Duration.ofSeconds(10));
        client.set("member" + args[2], new byte[] {1});
        System.out.println("connected");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
