/**
 * Forming a communicator: the job's configuration ({@link io.jcoll.bootstrap.JobConfig}),
 * the rendezvous key-value store rank 0 hosts ({@link io.jcoll.bootstrap.StoreServer},
 * {@link io.jcoll.bootstrap.StoreClient}), and the authenticated
 * {@link io.jcoll.bootstrap.Handshake} every jcoll connection opens with.
 */
package io.jcoll.bootstrap;
