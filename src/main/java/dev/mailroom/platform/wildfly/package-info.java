/**
 * WildFly's side of {@link dev.mailroom.platform.ServerPlatform}: its management model over JMX ({@code jboss.as:}
 * MBeans: the MDB delivery switch, the embedded broker's runtime queues) and its JNDI names. The only package besides
 * {@code platform.liberty} that may name a server's management objects (ArchitectureTest).
 *
 * <p>May use: platform.
 */
package dev.mailroom.platform.wildfly;
