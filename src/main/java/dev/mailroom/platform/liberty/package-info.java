/**
 * Open Liberty's side of {@link dev.mailroom.platform.ServerPlatform}: its endpoint control MBean
 * ({@code WebSphere:feature=kernel,name=ServerEndpointControl}), its JNDI names, and the Prometheus registry Mailroom
 * keeps there (Liberty offers none to the deployment). The only package besides {@code platform.wildfly} that may
 * name a server's management objects (ArchitectureTest).
 *
 * <p>May use: platform.
 */
package dev.mailroom.platform.liberty;
