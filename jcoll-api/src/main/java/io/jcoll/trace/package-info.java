/**
 * What the collectives did, for debugging a job: each communicator's flight recorder (its last calls, written to a
 * file by a failing rank) and {@code jcoll trace}, which merges every rank's file; one JDK Flight Recorder event
 * per call ({@link io.jcoll.trace.CollectiveEvent}) and their conversion to a Chrome/Perfetto trace. The file
 * format is versioned ({@link io.jcoll.trace.TraceDump#SCHEMA}); the classes are jcoll's tooling, not API.
 */
package io.jcoll.trace;
