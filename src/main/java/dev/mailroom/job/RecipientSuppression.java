package dev.mailroom.job;

import static dev.mailroom.job.JobLedger.SUPPRESSED;
import static dev.mailroom.job.JobLedger.suppressionKey;
import static dev.mailroom.job.JobTimeline.note;
import static dev.mailroom.job.LedgerSql.instant;
import static dev.mailroom.job.LedgerSql.onTables;

import dev.mailroom.recoverability.SuppressionDecision;
import dev.mailroom.recoverability.SuppressionFacts;
import dev.mailroom.recoverability.SuppressionPolicy;
import jakarta.persistence.EntityManager;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The admission's suppression step: a job's recipients, the facts {@link SuppressionPolicy} decides from, and who it withheld. */
final class RecipientSuppression {

    private final EntityManager em;

    RecipientSuppression(EntityManager em) {
        this.em = em;
    }

    /** The job's recipients in order (to, cc, bcc). */
    List<JobRecipient> recipients(long jobId) {
        return em.createQuery("select r from JobRecipient r where r.jobId = :j order by r.position", JobRecipient.class)
                .setParameter("j", jobId)
                .getResultList();
    }

    /**
     * The facts {@link SuppressionPolicy} decides from: the job's recipients and the active entries of its
     * tenant's suppression list for their addresses. The list is read by its table ({@code suppression}), as
     * {@link IdempotencyClaims} reads {@code dead_letter}: the suppression capability stands on this package,
     * not under it.
     */
    SuppressionFacts facts(MailJob j, List<JobRecipient> recipients) {
        if (recipients.isEmpty()) {
            return new SuppressionFacts(List.of());
        }
        // an erased address is on the list as its hash only: looked up both ways
        List<String> keys = recipients.stream()
                .flatMap(r -> java.util.stream.Stream.of(suppressionKey(j.getTenant(), r.getAddress()),
                        suppressionKey(j.getTenant(), JobRecipient.hashed(r.getAddress()))))
                .distinct().toList();
        Map<String, SuppressionFacts.Match> active = new HashMap<>();
        @SuppressWarnings("unchecked")
        List<Object[]> rows = onTables(em,
                        "select id, address, reason, created_at, cause from suppression where active_key in (:keys)",
                        "suppression")
                .setParameter("keys", keys)
                .getResultList();
        for (Object[] row : rows) {
            active.put((String) row[1], new SuppressionFacts.Match(((Number) row[0]).longValue(), (String) row[2],
                    instant(row[3]), (String) row[4]));
        }
        return new SuppressionFacts(recipients.stream()
                .map(r -> new SuppressionFacts.Recipient(r.getPosition(), r.getAddress(), match(active, r.getAddress()),
                        SUPPRESSED.equals(r.getDeliveryState())))
                .toList());
    }

    private static SuppressionFacts.Match match(Map<String, SuppressionFacts.Match> active, String address) {
        SuppressionFacts.Match plain = active.get(address);
        return plain != null ? plain : active.get(JobRecipient.hashed(address));
    }

    /** Records each newly withheld recipient: its delivery state and, on the job's timeline, which suppression. */
    void withhold(MailJob j, List<SuppressionDecision.Withheld> withheld, Instant now, List<JobEvent> timeline) {
        for (SuppressionDecision.Withheld w : withheld) {
            if (!w.newlyWithheld()) {
                continue;
            }
            em.find(JobRecipient.class, new JobRecipient.Key(j.getId(), w.position())).delivery(SUPPRESSED, w.describe(), now);
            note(timeline, j, "recipient_suppressed", w.describe(), now);
        }
    }
}
