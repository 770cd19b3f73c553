package dev.mailroom.provider.sandbox;

import dev.mailroom.provider.MailAttachment;
import dev.mailroom.provider.MailProvider;
import dev.mailroom.provider.OutboundMail;
import dev.mailroom.provider.ProviderResponse;
import dev.mailroom.provider.SendCheckpoint;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Typed;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The embedded default's provider: sends nothing, records what it would have sent in
 * {@code sandbox_mail} (its attachments in {@code sandbox_attachment}, byte for byte) so a newcomer can see it
 * ({@code GET /api/v1/sandbox/messages}). It writes in the
 * delivery's own transaction, so its outbox holds exactly the jobs whose sending committed.
 */
@ApplicationScoped
@Typed(SandboxProvider.class) // the active MailProvider is chosen by ProviderProducer
public class SandboxProvider implements MailProvider {

    public static final String NAME = "sandbox";

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;
    @Inject
    Clock clock;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean dedupesByIdempotencyKey() {
        return true; // its outbox has a unique key: a second record for one key cannot exist
    }

    /** Its checkpoint is the first thing it does, and it drops a duplicate. */
    @Override
    public boolean irrevocableFromTheStart() {
        return true;
    }

    /**
     * Its outbox row is written in the delivery's transaction ({@code MANDATORY} below), so the job's claim, attempt
     * and acceptance commit in that transaction too: the outbox holds a job exactly when the job says sent.
     */
    @Override
    public boolean writesInTheDeliveryTransaction() {
        return true;
    }

    @Override
    @Transactional(Transactional.TxType.MANDATORY)
    public ProviderResponse send(OutboundMail mail, SendCheckpoint checkpoint) {
        checkpoint.beforeIrrevocableWrite();
        List<SandboxMail> existing = em.createQuery(
                        "select m from SandboxMail m where m.idempotencyKey = :k", SandboxMail.class)
                .setParameter("k", mail.idempotencyKey())
                .getResultList();
        if (!existing.isEmpty()) {
            return ProviderResponse.accepted(NAME, "200", "already recorded", "sandbox-" + existing.get(0).getId());
        }
        List<String> recipients = new ArrayList<>(mail.to());
        mail.cc().forEach(r -> recipients.add("cc:" + r));
        mail.bcc().forEach(r -> recipients.add("bcc:" + r));
        SandboxMail recorded = new SandboxMail(mail.idempotencyKey(), mail.messageId(), mail.from(),
                String.join(", ", recipients), mail.subject(), mail.text(), mail.html(), clock.instant());
        // its id is the identity insert's, made by persist itself: no flush, which would also write the job's row
        // before its outcome (in this same transaction) changes it again
        em.persist(recorded);
        for (int i = 0; i < mail.attachments().size(); i++) {
            MailAttachment a = mail.attachments().get(i);
            em.persist(new SandboxAttachment(recorded.getId(), i, a.filename(), a.contentType(), a.content(),
                    a.sha256()));
        }
        return ProviderResponse.accepted(NAME, "200", "recorded in the sandbox outbox", "sandbox-" + recorded.getId());
    }

    /** The files kept with these mails, by mail id, each mail's in their order. */
    public Map<Long, List<SandboxAttachment>> attachmentsOf(Collection<Long> mailIds) {
        if (mailIds.isEmpty()) {
            return Map.of();
        }
        Map<Long, List<SandboxAttachment>> byMail = new HashMap<>();
        em.createQuery("select a from SandboxAttachment a where a.sandboxMailId in :ids order by a.sandboxMailId, "
                        + "a.position", SandboxAttachment.class)
                .setParameter("ids", mailIds)
                .getResultList()
                .forEach(a -> byMail.computeIfAbsent(a.getSandboxMailId(), k -> new ArrayList<>()).add(a));
        return byMail;
    }

    public List<SandboxMail> recent(int limit) {
        return em.createQuery("select m from SandboxMail m order by m.id desc", SandboxMail.class)
                .setMaxResults(limit)
                .getResultList();
    }
}
