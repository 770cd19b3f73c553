package dev.mailroom.send;

import dev.mailroom.job.Incoming;
import dev.mailroom.job.JmsMessages;
import dev.mailroom.platform.SchemaMigration;
import dev.mailroom.platform.DatabaseFailures;
import dev.mailroom.platform.DatabaseWrites;
import dev.mailroom.stopline.DeliveriesUnderWay;
import dev.mailroom.stopline.LineState;
import dev.mailroom.stopline.StopLine;
import dev.mailroom.stopline.StopLinePolicy;

import jakarta.ejb.EJB;
import jakarta.inject.Inject;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;

/**
 * What every send-queue MDB does: read the message and hand it to {@link SendService} inside the
 * container's JTA transaction. Returning commits, so the delivery is acknowledged together with
 * whatever the send path recorded and scheduled; an exception nobody foresaw propagates, rolls back,
 * and the broker's redelivery limit is the backstop. One subclass per send queue binds it.
 */
public abstract class SendQueueConsumer implements MessageListener {

    @Inject
    SendService sendService;
    @EJB
    SchemaMigration schema;
    @Inject
    StopLine line;
    @Inject
    RecoveryExecutor executor;
    @Inject
    DeliveriesUnderWay underWay;
    @Inject
    DatabaseWrites writes;

    /**
     * Set once the schema was seen migrated: the check is an EJB call (the transaction suspended and resumed),
     * needed only until the singleton's {@code @PostConstruct} has finished, not on every delivery.
     */
    private static volatile boolean migrated;

    /** The send queue this consumer is bound to. */
    protected abstract String queue();

    @Override
    public void onMessage(Message message) {
        // a stopping line stops the consumers once the deliveries under way at the stop have ended
        long ticket = underWay.begin(queue());
        try {
            deliver(message);
        } finally {
            underWay.end(ticket);
        }
    }

    private void deliver(Message message) {
        if (!migrated) {
            schema.awaitMigrated();
            migrated = true;
        }
        Incoming in;
        try {
            in = JmsMessages.incoming(message, queue());
        } catch (JMSException e) {
            throw new IllegalStateException("cannot read JMS message from " + queue(), e);
        }
        try {
            LineState state = line.state(queue());
            if (state.paused()) {
                // the line is stopped and its consumers are being paused: no provider call, no retry used; nothing
                // before this touches the database, so a put-back without a record commits with the broker alone
                executor.putBack(in, "line of " + queue() + " stopped (" + state.reason().wireName() + ")",
                        StopLinePolicy.recordsPutBacks(state));
                return;
            }
            line.delivered(queue());
            sendService.handle(in);
        } catch (RuntimeException e) {
            // rolls back (the job stays on the broker); the line stops until the database answers (takes writes
            // again, when its disk was full), so the broker's redelivery attempts are not burnt while it is away
            databaseStop(queue(), e, writes.refused(e)).ifPresent(line::databaseUnreachable);
            throw e;
        }
    }

    /**
     * Why a delivery that failed with {@code e} stops the lines, when the database is to blame: it refused the write
     * for a full disk ({@code fullDisk}), or it cannot be reached. Empty for anything else (a bug, a constraint): that
     * delivery alone rolls back and the broker's redelivery limit is the backstop.
     */
    static java.util.Optional<String> databaseStop(String queue, RuntimeException e, java.util.Optional<String> fullDisk) {
        if (fullDisk.isPresent()) {
            return java.util.Optional.of("delivery on " + queue + ": the database refuses writes: " + fullDisk.get());
        }
        return DatabaseFailures.isConnectionFailure(e) ? java.util.Optional.of("delivery on " + queue + ": " + e)
                : java.util.Optional.empty();
    }
}
