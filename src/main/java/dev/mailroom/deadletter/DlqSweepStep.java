package dev.mailroom.deadletter;

import dev.mailroom.job.Incoming;
import dev.mailroom.job.JmsMessages;
import dev.mailroom.job.JobParser;
import dev.mailroom.job.MailJob;
import dev.mailroom.job.ParseResult;
import dev.mailroom.platform.MailroomConfig;
import dev.mailroom.platform.Destinations;
import dev.mailroom.platform.lease.Leases;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.time.Instant;
import java.util.List;

/**
 * One page of a sweep, one JTA transaction over the broker and the database: up to {@code size} bare
 * messages are taken off a DLQ, each recorded or recognised as a copy ({@link DlqSweepRules}) and put
 * back with its envelope. A failure rolls the page back; its messages stay bare and the next sweep
 * tries again. Each page first checks, under the lease row's lock, that this node still holds the sweep's lease
 * as it took it: a node that stopped in the middle of a sweep and lost the lease meanwhile sweeps nothing more.
 */
@ApplicationScoped
public class DlqSweepStep {

    /** Messages the broker routed carry no envelope; every message Mailroom puts on a DLQ does. */
    static final String BARE = "mr_reason IS NULL";

    /** What one page did. */
    public record Page(int taken, int recorded) { }

    @Inject
    JMSContext jms;
    @Inject
    Destinations destinations;
    @Inject
    MailroomConfig config;
    @Inject
    JobParser parser;
    @Inject
    DeadLetterRecorder recorder;
    @Inject
    Clock clock;
    @PersistenceContext(unitName = "mailroom")
    EntityManager em;
    @Inject
    Leases leases;

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Page sweepPage(String queue, int size) throws JMSException {
        if (!leases.fenced(DlqSweeper.LEASE)) {
            return new Page(0, 0); // the sweep moved to another node while this one was stopped: it sweeps no more
        }
        int taken = 0;
        int recorded = 0;
        try (JMSConsumer bare = jms.createConsumer(destinations.deadLetterQueue(queue), BARE)) {
            Message m;
            while (taken < size && (m = bare.receiveNoWait()) != null) {
                taken++;
                if (sweep(queue, JmsMessages.incoming(m, queue))) {
                    recorded++;
                }
            }
        }
        return new Page(taken, recorded);
    }

    /** Carries out the decision for one bare message taken off the DLQ; true if it was a new dead letter. */
    private boolean sweep(String queue, Incoming in) {
        String messageId = messageIdOf(in);
        MailJob job = job(queue, messageId);
        Instant now = clock.instant();
        DeadLetter current = recorder.current(in, config.consumerName(), messageId);
        DlqSweepRules.Action action = DlqSweepRules.decide(in.jmsMessageId(), current == null ? null
                : new DlqSweepRules.Recorded(current.getId(), DeadLetter.Status.valueOf(current.getStatus()),
                current.getDlqJmsMessageId()));
        if (action instanceof DlqSweepRules.Action.EnvelopeCopy) {
            recorder.reEnvelope(in, job, current, now);
            return false;
        }
        recorder.recordBrokerRouted(in, job, messageId, now);
        return true;
    }

    private String messageIdOf(Incoming in) {
        ParseResult parsed = parser.parse(in.body());
        if (parsed instanceof ParseResult.Parsed p) {
            return p.job().messageId();
        }
        String fromRejection = ((ParseResult.Rejected) parsed).messageId();
        return fromRejection != null ? fromRejection : "jms:" + in.jmsMessageId();
    }

    private MailJob job(String queue, String messageId) {
        List<MailJob> jobs = em.createQuery("select j from MailJob j where j.queue = :q and j.messageId = :m",
                        MailJob.class)
                .setParameter("q", queue)
                .setParameter("m", messageId)
                .getResultList();
        return jobs.isEmpty() ? null : jobs.get(0);
    }
}
