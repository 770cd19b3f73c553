package dev.mailroom.platform;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import jakarta.inject.Inject;

/**
 * Which {@link BrokerQueues} this node uses: the remote broker's management API when
 * {@code MAILROOM_BROKER_CONSOLE_URLS} names its consoles (the production topology, where
 * {@code MAILROOM_BROKER_URL} configured the server for a remote Artemis), else the server's embedded broker
 * ({@link ServerPlatform#embeddedBroker()}; WildFly's).
 */
@ApplicationScoped
public class BrokerQueuesProducer {

    private static final Logger LOG = Logger.getLogger(BrokerQueuesProducer.class.getName());

    /** The consoles of the remote brokers, e.g. {@code http://primary:8161,http://backup:8161}. */
    @Inject
    @ConfigProperty(name = "mailroom.broker.console-urls")
    Optional<List<String>> consoleUrls;

    /** The user reading the figures (role mailroom on the broker may read, not change); default the broker user. */
    @Inject
    @ConfigProperty(name = "mailroom.broker.management-user")
    Optional<String> managementUser;

    @Inject
    @ConfigProperty(name = "mailroom.broker.management-password")
    Optional<String> managementPassword;

    @Inject
    @ConfigProperty(name = "mailroom.broker.user", defaultValue = "mailroom")
    String brokerUser;

    @Inject
    @ConfigProperty(name = "mailroom.broker.password")
    Optional<String> brokerPassword;

    @Inject
    ServerPlatform platform;

    @Produces
    @ApplicationScoped
    BrokerQueues brokerQueues() {
        List<String> urls = consoleUrls.orElse(List.of()).stream().map(String::trim).filter(s -> !s.isEmpty()).toList();
        if (urls.isEmpty()) {
            return platform.embeddedBroker().orElseThrow(() -> new IllegalStateException(platform.name()
                    + " has no broker of its own: MAILROOM_BROKER_CONSOLE_URLS must name the broker's consoles"));
        }
        LOG.info(() -> "broker figures from the remote broker consoles " + urls);
        return new RemoteBrokerQueues(urls.stream().map(URI::create).toList(), managementUser.orElse(brokerUser),
                managementPassword.or(() -> brokerPassword).orElse(""));
    }
}
