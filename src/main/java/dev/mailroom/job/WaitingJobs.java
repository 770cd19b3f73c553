package dev.mailroom.job;

import dev.mailroom.platform.Destinations;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.QueueBrowser;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;

/**
 * The jobs waiting on the broker for a send queue, read and never taken: a JMS {@link QueueBrowser} over the
 * queue, so while a line is stopped (its consumers paused) support sees who is waiting without a single message
 * moving. Through JMS, the same against the embedded broker and a remote Artemis. Scheduled copies (retries,
 * put-backs not yet due) are not browsable until they are due; the queue's figures count them.
 */
@ApplicationScoped
public class WaitingJobs {

    /** The most a look shows: browsing walks the queue from its head, and a page is what a person reads. */
    public static final int MAX_LIMIT = 100;

    @Inject
    JMSContext jms;
    @Inject
    Destinations destinations;
    @Inject
    JobParser parser;
    @Inject
    PayloadRedaction redaction;

    /**
     * One waiting message as a job: who it is for and what it is, or why it cannot be read as one.
     *
     * @param queuedAt   when the producer (or, for a retry copy, Mailroom) sent it: the JMS timestamp
     * @param retryOf    the JMS message id this is a retry copy of ({@code mr_retry_of}), null for a producer's
     * @param unreadable why the body is not a job (it will be dead-lettered as poison), null when it is one
     */
    public record Waiting(String jmsMessageId, Instant queuedAt, int deliveryCount, String retryOf,
                          String messageId, String tenant, String campaignId, List<String> recipients,
                          String subject, String templateId, String unreadable) { }

    /** The first {@code limit} (1..{@value #MAX_LIMIT}) messages waiting on {@code queue}, head first. */
    public List<Waiting> first(String queue, int limit, boolean reveal) {
        int n = Math.max(1, Math.min(limit, MAX_LIMIT));
        List<Waiting> found = new ArrayList<>();
        try (QueueBrowser browser = jms.createBrowser(destinations.sendQueue(queue))) {
            Enumeration<?> messages = browser.getEnumeration();
            while (found.size() < n && messages.hasMoreElements()) {
                found.add(waiting((Message) messages.nextElement(), queue, reveal));
            }
        } catch (JMSException e) {
            throw new IllegalStateException("cannot browse " + queue + ": " + e.getMessage(), e);
        }
        return found;
    }

    private Waiting waiting(Message m, String queue, boolean reveal) throws JMSException {
        Incoming in = JmsMessages.incoming(m, queue);
        String retryOf = m.propertyExists("mr_retry_of") ? m.getStringProperty("mr_retry_of") : null;
        ParseResult parsed = parser.parse(in.body());
        if (parsed instanceof ParseResult.Parsed p) {
            SendJob job = p.job();
            List<String> recipients = new ArrayList<>();
            job.to().forEach(a -> recipients.add(shown("to", a, reveal)));
            job.cc().forEach(a -> recipients.add(shown("cc", a, reveal)));
            job.bcc().forEach(a -> recipients.add(shown("bcc", a, reveal)));
            return new Waiting(in.jmsMessageId(), in.brokerTimestamp(), in.deliveryCount(), retryOf, job.messageId(),
                    job.tenant(), job.campaignId(), recipients,
                    reveal ? job.subject() : redaction.member("subject", job.subject()), job.templateId(), null);
        }
        ParseResult.Rejected r = (ParseResult.Rejected) parsed;
        return new Waiting(in.jmsMessageId(), in.brokerTimestamp(), in.deliveryCount(), retryOf, r.messageId(), null,
                null, List.of(), null, null, r.reason().name() + ": " + r.detail());
    }

    private String shown(String kind, String address, boolean reveal) {
        String a = JobRecipient.normalise(address);
        return reveal ? a : redaction.recipient(kind, a);
    }
}
