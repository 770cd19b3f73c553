package dev.mailroom.send;

import dev.mailroom.job.HeldSend;
import dev.mailroom.job.Incoming;
import dev.mailroom.job.JmsMessages;
import dev.mailroom.job.JobLedger;
import dev.mailroom.job.KeptMessage;
import dev.mailroom.job.MailJob;
import dev.mailroom.platform.Destinations;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.jms.JMSContext;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.transaction.Transactional;

/**
 * An operator's answer to a job whose send is {@code unknown} (it may have reached a provider that cannot
 * drop a duplicate): "mark as sent" closes it as {@code sent_to_provider}; "send again" republishes its
 * original bytes to its queue (same idempotency key, same Message-ID), marked
 * {@link Incoming#SEND_AGAIN_PROPERTY}, and the copy owns the job, which admission then lets through
 * once. Both are recorded on the job's timeline with who and why.
 */
@ApplicationScoped
public class UnknownSends {

    @Inject
    JobLedger ledger;
    @Inject
    JMSContext jms;
    @Inject
    Destinations destinations;
    @Inject
    KeyOrders keys;

    /** Closes the job as sent; if its key was held after it, the hold is lifted and the key's next job goes. */
    @Transactional
    public void markSent(String messageId, String queue, String actor, String reason) {
        MailJob job = ledger.markSent(OperatorRequests.job(ledger, messageId, queue).getId(), actor,
                OperatorRequests.reason(reason));
        keys.after(job.getQueue(), job.getMessageId(), job.getOrderingKey());
    }

    /** @return the JMS message id of the copy that was sent */
    @Transactional
    public String sendAgain(String messageId, String queue, String actor, String reason) {
        String why = OperatorRequests.reason(reason);
        MailJob job = OperatorRequests.job(ledger, messageId, queue);
        HeldSend held = ledger.heldForSendAgain(job.getId());
        String copy = publish(job, held);
        ledger.sendAgain(job.getId(), copy, actor, why);
        return copy;
    }

    private String publish(MailJob job, HeldSend held) {
        try {
            KeptMessage kept = held.getMessage();
            Message m = JmsMessages.withBody(jms, kept.getPayload(), kept.isTextMessage());
            m.setLongProperty(Incoming.SEND_AGAIN_PROPERTY, job.getId());
            if (kept.getTraceparent() != null) {
                m.setStringProperty("traceparent", kept.getTraceparent());
            }
            jms.createProducer().send(destinations.sendQueue(job.getQueue()), m);
            return m.getJMSMessageID();
        } catch (JMSException e) {
            throw new IllegalStateException("cannot send job " + job.getMessageId() + " again to " + job.getQueue(), e);
        }
    }
}
