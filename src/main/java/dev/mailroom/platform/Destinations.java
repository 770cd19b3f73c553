package dev.mailroom.platform;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.jms.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import javax.naming.InitialContext;
import javax.naming.NamingException;

/**
 * The JMS queues server-config binds ({@code java:/jms/queue/<name>}): a send queue, and its
 * dead-letter queue {@code DLQ.<name>}. Looked up in JNDI, not created from names, so the address is
 * whatever the server configured (no "jms.queue." prefix guessing).
 */
@ApplicationScoped
public class Destinations {

    private final ConcurrentMap<String, Queue> queues = new ConcurrentHashMap<>();

    public Queue sendQueue(String name) {
        return lookup(name);
    }

    public Queue deadLetterQueue(String sendQueue) {
        return lookup("DLQ." + sendQueue);
    }

    private Queue lookup(String name) {
        return queues.computeIfAbsent(name, n -> {
            try {
                return (Queue) new InitialContext().lookup("java:/jms/queue/" + n);
            } catch (NamingException e) {
                throw new IllegalStateException("queue " + n + " is not bound at java:/jms/queue/" + n
                        + "; see server-config/wildfly", e);
            }
        });
    }
}
