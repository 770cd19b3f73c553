package dev.mailroom.platform;

import java.util.Optional;

/**
 * What differs between the application servers Mailroom runs on, one implementation per server
 * ({@code platform.wildfly}, {@code platform.liberty}), chosen at run time ({@code platform.servers.ServerPlatforms}). Everything
 * else Mailroom does is plain Jakarta EE and MicroProfile; only these classes name a server's management objects.
 */
public interface ServerPlatform {

    /** The server's name, for logs and the health answer. */
    String name();

    /** The JNDI name the server configuration binds the JMS queue {@code queue} at. */
    String queueJndiName(String queue);

    /** Figures of the broker running inside the server; empty where the broker runs beside it (remote). */
    Optional<BrokerQueues> embeddedBroker();

    /** The delivery switch of this deployment's message-driven beans. */
    ConsumerSwitch consumers();

    /**
     * The registry Mailroom keeps itself where the server offers none to the deployment; empty where the server
     * has its own (WildFly's Micrometer subsystem, a {@code MeterRegistry} bean it scrapes itself).
     */
    Optional<OwnMeters> ownMeters();
}
