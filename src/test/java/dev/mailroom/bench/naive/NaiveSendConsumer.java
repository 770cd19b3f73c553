package dev.mailroom.bench.naive;

import java.time.Instant;

import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

/**
 * The plain message-driven bean a team would write: in the container's JTA transaction, parse the job, insert one row,
 * call the provider Mailroom is configured with ({@link ProviderCall}), return (commit). Same concurrency as Mailroom's
 * SendConsumer: the same {@code maxSession} expression and the same instance pool ({@code mailroom-send}, bound in
 * jboss-ejb3.xml). No claim, no attempt history, no point of no return, no envelope: what Mailroom's guarantees are
 * measured against.
 */
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "destinationLookup", propertyValue = "java:/jms/queue/bench.naive"),
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue"),
        @ActivationConfigProperty(propertyName = "maxSession", propertyValue = NaiveSendConsumer.CONSUMERS)
})
@TransactionAttribute(TransactionAttributeType.REQUIRED)
public class NaiveSendConsumer implements MessageListener {

    /** The concurrent deliveries of each plain bean: Mailroom's SendConsumer's expression. */
    static final String CONSUMERS = "${env.MAILROOM_CONSUMERS:4}";

    @PersistenceContext(unitName = "naive")
    EntityManager em;

    @Override
    public void onMessage(Message message) {
        BenchJob job = BenchJob.from(message);
        NaiveMail mail = new NaiveMail();
        mail.messageId = job.messageId;
        mail.from = job.from;
        mail.to = String.join(", ", job.to);
        mail.subject = job.subject;
        mail.text = job.text;
        mail.sentAt = Instant.now();
        em.persist(mail);
        ProviderCall.send(em, job);
    }
}
