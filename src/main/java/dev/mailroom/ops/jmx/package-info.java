/**
 * JMX: one MBean per send queue, {@code mailroom:type=DeadLetters,queue=<queue>}, registered in the platform
 * MBeanServer while the deployment runs (reachable remotely through WildFly's JMX remoting connector on the
 * management port). A thin adapter: its attributes (DLQ depth, open dead letters, the oldest one's age,
 * whether the consumers are paused) and operations (plan, run and read a redrive, discard one entry, pause
 * and resume the consumers) delegate to the same core the REST API uses; a refusal reaches the JMX client
 * as an {@link java.lang.IllegalArgumentException} with the reason. Besides them, {@code mailroom:type=Erasures} erases
 * one address as the REST API does, and one MBean per provider reads its breaker.
 */
package dev.mailroom.ops.jmx;
