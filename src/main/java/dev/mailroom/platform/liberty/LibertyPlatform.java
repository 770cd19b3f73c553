package dev.mailroom.platform.liberty;

import dev.mailroom.platform.BrokerQueues;
import dev.mailroom.platform.ConsumerSwitch;
import dev.mailroom.platform.MdbQueues;
import dev.mailroom.platform.OwnMeters;
import dev.mailroom.platform.ServerPlatform;
import java.util.Optional;

/**
 * Open Liberty: queues bound at {@code jms/queue/<name>} (server-config/liberty/server.xml; Liberty refuses
 * {@code java:} names in its configuration), no broker of its own (always a remote Artemis, whose figures come from
 * its console: {@code MAILROOM_BROKER_CONSOLE_URLS}), its endpoint control as the MDB switch.
 */
public final class LibertyPlatform implements ServerPlatform {

    private final ConsumerSwitch consumers;
    private final OwnMeters meters = new OwnPrometheusRegistry();

    public LibertyPlatform(MdbQueues mdbQueues) {
        this.consumers = new LibertyConsumerSwitch(mdbQueues);
    }

    @Override
    public String name() {
        return "Open Liberty";
    }

    @Override
    public String queueJndiName(String queue) {
        return "jms/queue/" + queue;
    }

    @Override
    public Optional<BrokerQueues> embeddedBroker() {
        return Optional.empty();
    }

    @Override
    public ConsumerSwitch consumers() {
        return consumers;
    }

    @Override
    public Optional<OwnMeters> ownMeters() {
        return Optional.of(meters);
    }
}
