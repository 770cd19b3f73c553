package dev.mailroom.deadletter;

import dev.mailroom.platform.MailroomConfig;
import dev.mailroom.platform.Destinations;
import dev.mailroom.job.Incoming;
import dev.mailroom.job.JmsMessages;
import dev.mailroom.job.JobParser;
import dev.mailroom.job.MailJob;
import dev.mailroom.job.ParseResult;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.EJB;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.Timer;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.inject.Inject;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.QueueBrowser;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Clock;
import java.time.Duration;
import java.util.Enumeration;
import java.util.List;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Finds what the broker dead-lettered by itself — a message whose every delivery threw until
 * max-delivery-attempts moved it to {@code DLQ.<queue>} — and gives it its {@code dead_letter} row,
 * joined with what the database knows of the job. Such a message carries no {@code mr_reason} (the
 * policy's dead letters always do), so it is selected by that. It runs every
 * {@code mailroom.deadletter.sweep-interval} (default 30 s): a broker-routed dead letter has its
 * row at most one interval after it arrived. A message already swept is recognised by its DLQ JMS
 * message id, so a second sweep changes nothing.
 */
@Singleton
@Startup
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class DlqSweeper {

    /** At most this many broker-routed dead letters are recorded per queue and sweep. */
    static final int MAX_PER_SWEEP = 500;
    private static final Logger LOG = Logger.getLogger(DlqSweeper.class.getName());

    @Resource
    TimerService timers;
    @Inject
    @ConfigProperty(name = "mailroom.deadletter.sweep-interval", defaultValue = "PT30S")
    String interval;
    @Inject
    MailroomConfig config;
    @Inject
    Destinations destinations;
    @Inject
    JMSContext jms;
    @Inject
    JobParser parser;
    @Inject
    DeadLetterRecorder recorder;
    @Inject
    Clock clock;
    @PersistenceContext(unitName = "mailroom")
    EntityManager em;
    @EJB
    dev.mailroom.platform.SchemaMigration schema;

    @PostConstruct
    void schedule() {
        long ms = Duration.parse(interval).toMillis();
        timers.createIntervalTimer(ms, ms, new TimerConfig("dlq-sweeper", false));
    }

    /**
     * One sweep of every send queue's DLQ, in one transaction. A failure rolls it back and is logged by
     * the container; the messages stay in the DLQ and the next sweep tries again.
     */
    @Timeout
    void onTimer(Timer timer) throws JMSException {
        schema.awaitMigrated();
        for (String queue : config.queues()) {
            int n = sweep(queue);
            if (n > 0) {
                LOG.warning(() -> "recorded " + n + " broker-routed dead letter(s) from DLQ." + queue);
            }
        }
    }

    /** Records the broker-routed dead letters of one send queue's DLQ; returns how many were new. */
    public int sweep(String queue) throws JMSException {
        int recorded = 0;
        try (QueueBrowser browser = jms.createBrowser(destinations.deadLetterQueue(queue), "mr_reason IS NULL")) {
            Enumeration<?> messages = browser.getEnumeration();
            while (messages.hasMoreElements() && recorded < MAX_PER_SWEEP) {
                Message m = (Message) messages.nextElement();
                if (alreadySwept(m.getJMSMessageID())) {
                    continue;
                }
                Incoming in = JmsMessages.incoming(m, queue);
                String messageId = messageIdOf(in);
                recorder.recordBrokerRouted(in, job(queue, messageId), messageId, clock.instant(), m.getJMSMessageID());
                recorded++;
            }
        }
        return recorded;
    }

    private boolean alreadySwept(String dlqJmsMessageId) {
        return !em.createQuery("select d.id from DeadLetter d where d.dlqJmsMessageId = :id", Long.class)
                .setParameter("id", dlqJmsMessageId)
                .getResultList()
                .isEmpty();
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
