package dev.mailroom.platform.wildfly;

import dev.mailroom.platform.BrokerQueues;
import dev.mailroom.platform.ConsumerSwitch;
import dev.mailroom.platform.OwnMeters;
import dev.mailroom.platform.ServerPlatform;
import java.util.Optional;

/** WildFly: queues bound at {@code java:/jms/queue/<name>} (server-config/wildfly), its embedded broker, its MDB switch. */
public final class WildFlyPlatform implements ServerPlatform {

    private final ConsumerSwitch consumers = new WildFlyConsumerSwitch();
    private final BrokerQueues embedded = new EmbeddedBrokerQueues();

    @Override
    public String name() {
        return "WildFly";
    }

    @Override
    public String queueJndiName(String queue) {
        return "java:/jms/queue/" + queue;
    }

    @Override
    public Optional<BrokerQueues> embeddedBroker() {
        return Optional.of(embedded);
    }

    @Override
    public ConsumerSwitch consumers() {
        return consumers;
    }

    @Override
    public Optional<OwnMeters> ownMeters() {
        return Optional.empty();
    }
}
