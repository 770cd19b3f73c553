package dev.mailroom.erasure;

import jakarta.persistence.EntityManager;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/** Carries one {@link ErasurePolicy.Action} out on one row of one table, counting the rows it changes by {@code table.action}. */
final class ErasureRows {

    private final EntityManager em;
    private final ErasureTarget t;
    private final String address;
    private final Object key;
    private final Map<String, Long> counts;

    ErasureRows(EntityManager em, ErasureTarget t, String address, Object key, Map<String, Long> counts) {
        this.em = em;
        this.t = t;
        this.address = address;
        this.key = key;
        this.counts = counts;
    }

    void apply(ErasurePolicy.Action action, Object[] row, String actor, String why, ErasureBatch.Discards discards) {
        if (action instanceof ErasurePolicy.Action.Delete) {
            delete();
        } else if (action instanceof ErasurePolicy.Action.Mark m) {
            mark(row, m.marker());
        } else if (action instanceof ErasurePolicy.Action.Discard d) {
            discards.discard(((Number) key).longValue(), actor, d.reason() + ": " + why);
            count("dead_letter.discarded", 1);
            mark(row, d.marker());
        } else if (action instanceof ErasurePolicy.Action.Hash h) {
            hash(h.hash(), actor);
        }
    }

    private void delete() {
        if (t.kind() == ErasurePolicy.Kind.job) {
            deleteJob();
            return;
        }
        if (t.table().equals("sandbox_mail")) {
            count("sandbox_attachment.deleted", update("delete from sandbox_attachment where sandbox_mail_id = :k"));
        }
        count(t.table() + ".deleted", update("delete from " + t.table() + " where " + t.key() + " = :k"));
    }

    /** The job and every row hanging off it; its dead letters (already erased) outlive it without the link. */
    private void deleteJob() {
        for (String child : List.of("held_send", "job_event", "job_attempt", "job_recipient")) {
            count(child + ".deleted", update("delete from " + child + " where job_id = :k"));
        }
        update("update dead_letter set job_id = null where job_id = :k");
        // the claim is left to retention's expiry of removed jobs' claims, as for a job retention removed
        em.createNativeQuery("update send_claim set kept_until = current_timestamp where job_id = :k and kept_until is null")
                .setParameter("k", key).executeUpdate();
        count("mail_job.deleted", update("delete from mail_job where id = :k"));
    }

    private void mark(Object[] row, String marker) {
        if (t.kind() == ErasurePolicy.Kind.job) {
            count("job_recipient.marked", em.createNativeQuery(
                            "update job_recipient set address = :m where job_id = :k and address = :a")
                    .setParameter("m", marker).setParameter("k", key).setParameter("a", address).executeUpdate());
            return;
        }
        int first = t.state() == null ? 1 : 2;
        List<String> columns = t.columns();
        for (int i = first; i < row.length; i++) {
            String column = columns.get(i);
            if (!ErasurePolicy.names(ErasureBatch.text(row[i]), address)) {
                continue;
            }
            if (row[i] instanceof byte[] b && t.kind() == ErasurePolicy.Kind.dead_letter) {
                // a dead letter's payload goes (its size and SHA-256 stay)
                em.createNativeQuery("update " + t.table() + " set " + column + " = null where " + t.key() + " = :k")
                        .setParameter("k", key).executeUpdate();
            } else if (row[i] instanceof byte[] b) {
                // other bodies keep their shape, the address replaced
                em.createNativeQuery("update " + t.table() + " set " + column + " = :v where " + t.key() + " = :k")
                        .setParameter("v", ErasurePolicy.replaced(new String(b, StandardCharsets.UTF_8), address, marker)
                                .getBytes(StandardCharsets.UTF_8))
                        .setParameter("k", key).executeUpdate();
            } else {
                em.createNativeQuery("update " + t.table() + " set " + column + " = :v where " + t.key() + " = :k and "
                                + column + " = :old")
                        .setParameter("v", ErasurePolicy.replaced((String) row[i], address, marker))
                        .setParameter("k", key).setParameter("old", row[i]).executeUpdate();
            }
        }
        count(t.table() + ".marked", 1);
    }

    /**
     * A suppression keeps the address as its hash, active as it was; if its tenant already has an active entry for the
     * hash (an earlier erasure's), this one is lifted instead, so the list keeps one active entry per address.
     */
    private void hash(String hash, String actor) {
        Object[] s = (Object[]) em.createNativeQuery("select tenant, active_key, cause, created_why, lifted_why, address"
                + " from suppression where id = :k").setParameter("k", key).getSingleResult();
        String activeKey = s[1] == null ? null : ErasureBatch.suppressionKey((String) s[0], hash);
        boolean taken = activeKey != null && ((Number) em.createNativeQuery(
                        "select count(*) from suppression where active_key = :ak and id <> :k")
                .setParameter("ak", activeKey).setParameter("k", key).getSingleResult()).longValue() > 0;
        em.createNativeQuery("""
                        update suppression set address = :h, active_key = :ak, cause = :c, created_why = :cw,
                        lifted_why = :lw where id = :k""")
                .setParameter("h", address.equals(s[5]) ? hash : ErasurePolicy.replaced((String) s[5], address, hash))
                .setParameter("ak", taken ? null : activeKey)
                .setParameter("c", ErasurePolicy.replaced((String) s[2], address, ErasurePolicy.MARKER))
                .setParameter("cw", ErasurePolicy.replaced((String) s[3], address, ErasurePolicy.MARKER))
                .setParameter("lw", ErasurePolicy.replaced((String) s[4], address, ErasurePolicy.MARKER))
                .setParameter("k", key).executeUpdate();
        if (taken) {
            em.createNativeQuery("""
                            update suppression set lifted_at = current_timestamp, lifted_by = :actor,
                            lifted_why = 'erased: the address is suppressed by its hash already' where id = :k""")
                    .setParameter("actor", actor).setParameter("k", key).executeUpdate();
        }
        count("suppression.hashed", 1);
    }

    private int update(String sql) {
        return em.createNativeQuery(sql).setParameter("k", key).executeUpdate();
    }

    private void count(String kind, long n) {
        if (n > 0) {
            counts.merge(kind, n, Long::sum);
        }
    }
}
