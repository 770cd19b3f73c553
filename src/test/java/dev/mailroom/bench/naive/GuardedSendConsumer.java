package dev.mailroom.bench.naive;

import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

/**
 * The cheapest message-driven bean that keeps the two rules Mailroom's guarantees rest on for a provider outside its
 * database, written as a careful team would without Mailroom: <b>claim before the call</b> (the job and an attempt are
 * committed before the provider is called, so a crash during the call leaves an attempt to find) and <b>the acceptance
 * durable on its own</b> (committed apart from the delivery, so a broker failover that rolls the delivery back cannot
 * undo it). In the delivery's JTA transaction: parse the job, claim it ({@link GuardedLedger#claim}, its own
 * transaction), call the provider ({@link ProviderCall}, the sandbox writing in the delivery's transaction), record the
 * acceptance ({@link GuardedLedger#accepted}, its own transaction), return (the delivery commits): three commits per
 * job where the naive bean has one. No timeline, recipients, suppression, retry policy, metrics or fault tolerance.
 * Same concurrency as the naive bean and Mailroom's SendConsumer (maxSession and the {@code mailroom-send} pool).
 */
@MessageDriven(activationConfig = {
        @ActivationConfigProperty(propertyName = "destinationLookup", propertyValue = "java:/jms/queue/bench.guarded"),
        @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue"),
        @ActivationConfigProperty(propertyName = "maxSession", propertyValue = NaiveSendConsumer.CONSUMERS)
})
@TransactionAttribute(TransactionAttributeType.REQUIRED)
public class GuardedSendConsumer implements MessageListener {

    @PersistenceContext(unitName = "naive")
    EntityManager em;
    @Inject
    GuardedLedger ledger;

    @Override
    public void onMessage(Message message) {
        BenchJob job = BenchJob.from(message);
        int attempt = ledger.claim(job.messageId);
        if (attempt < 0) {
            return; // accepted by an earlier delivery: acknowledge, no second call
        }
        ProviderCall.send(em, job);
        ledger.accepted(job.messageId, attempt);
    }
}
