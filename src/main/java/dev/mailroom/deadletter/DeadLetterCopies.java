package dev.mailroom.deadletter;

import dev.mailroom.platform.Destinations;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.transaction.Transactional;

/**
 * The broker's copies of a dead letter on {@code DLQ.<queue>}, found by the dead letter's identity
 * (consumer, source queue, message id, lap: the {@code mr_*} envelope every copy carries) and, for a copy
 * written before copies carried their lap, by the JMS id the row points at. Removing them happens in the
 * caller's JTA transaction, so the row's new status and the broker's copies change together or not at all.
 */
@ApplicationScoped
public class DeadLetterCopies {

    /** The lap a DLQ copy belongs to (the rest of its identity is in the envelope's {@code mr_*} properties). */
    public static final String LAP_PROPERTY = "mr_lap";

    /** What identifies a dead letter's copies on the broker. */
    public record Identity(String consumer, String sourceQueue, String messageId, int lap, String dlqJmsMessageId) {
        public static Identity of(DeadLetter d) {
            return new Identity(d.getConsumer(), d.getSourceQueue(), d.getMessageId(), d.getLap(), d.getDlqJmsMessageId());
        }
    }

    @Inject
    JMSContext jms;
    @Inject
    Destinations destinations;

    /** Removes every broker copy of the dead letter; returns how many there were. */
    @Transactional(Transactional.TxType.MANDATORY)
    public int remove(Identity d) {
        int removed = 0;
        try (JMSConsumer copies = jms.createConsumer(destinations.deadLetterQueue(d.sourceQueue()), selector(d))) {
            // receiveNoWait asks the broker (not only the client's buffer) whether a matching message is there
            while (copies.receiveNoWait() != null) {
                removed++;
            }
        }
        return removed;
    }

    /** The JMS selector that matches the copies of one dead letter and nothing else. */
    static String selector(Identity d) {
        String byIdentity = "(mr_consumer = " + literal(d.consumer()) + " AND mr_source_queue = "
                + literal(d.sourceQueue()) + " AND mr_message_id = " + literal(d.messageId()) + " AND "
                + LAP_PROPERTY + " = " + d.lap() + ")";
        return d.dlqJmsMessageId() == null ? byIdentity
                : byIdentity + " OR JMSMessageID = " + literal(d.dlqJmsMessageId());
    }

    private static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }
}
