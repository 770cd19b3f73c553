package dev.mailroom.platform;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import javax.naming.InitialContext;
import javax.naming.NamingException;

/**
 * The JMS queues server-config binds (where: {@link ServerPlatform#queueJndiName}): a send queue, and its
 * dead-letter queue {@code DLQ.<name>}. Looked up in JNDI, not created from names, so the address is
 * whatever the server configured (no "jms.queue." prefix guessing).
 */
@ApplicationScoped
public class Destinations {

    @Inject
    ServerPlatform platform;

    private final ConcurrentMap<String, Queue> queues = new ConcurrentHashMap<>();

    public Queue sendQueue(String name) {
        return lookup(name);
    }

    public Queue deadLetterQueue(String sendQueue) {
        return lookup("DLQ." + sendQueue);
    }

    private Queue lookup(String name) {
        return queues.computeIfAbsent(name, n -> {
            String jndi = platform.queueJndiName(n);
            try {
                return (Queue) new InitialContext().lookup(jndi);
            } catch (NamingException e) {
                throw new IllegalStateException("queue " + n + " is not bound at " + jndi + " on " + platform.name()
                        + "; see server-config", e);
            }
        });
    }
}
