package dev.mailroom.erasure;

import dev.mailroom.job.JobLedger;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.Query;
import jakarta.transaction.Transactional;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One transaction each: the start of an erasure (its audit row, {@code running}), one batch of one table's rows
 * naming the address ({@link ErasurePolicy} decides, this carries it out and adds the rows to the audit row's counts
 * in the same transaction, so a crash loses neither), and its end ({@code done}). Each batch first locks the audit
 * row: two requests for one address take turns.
 */
@ApplicationScoped
public class ErasureBatch {

    /** Discards an open dead letter with who and why (its DLQ copy goes with it); in the caller's transaction. */
    public interface Discards {
        void discard(long deadLetterId, String actor, String why);
    }

    /** Where a batch stopped ({@code after}, the last key it read) and whether there may be more. */
    record Page(Object after, boolean more) {
    }

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;
    @Inject
    Discards discards;

    /** The audit row of {@code sha256} as it was found (a new one: {@code running}, no counts), now running once more. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public ErasureRecord start(String sha256, String actor, String reason, Instant now) {
        em.createNativeQuery("""
                        insert into erasure (address_sha256, state, requested_by, reason, requested_at, runs, counts)
                        values (?1, 'running', ?2, ?3, ?4, 0, '{}') on conflict do nothing""")
                .setParameter(1, sha256).setParameter(2, actor).setParameter(3, reason)
                .setParameter(4, now.atOffset(ZoneOffset.UTC)).executeUpdate();
        ErasureRecord found = record(sha256, true);
        em.createNativeQuery("update erasure set state = 'running', runs = runs + 1 where id = ?1")
                .setParameter(1, found.id()).executeUpdate();
        return found;
    }

    /** Marks the erasure done. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public ErasureRecord finish(String sha256, Instant now) {
        em.createNativeQuery("update erasure set state = 'done', finished_at = ?1 where address_sha256 = ?2")
                .setParameter(1, now.atOffset(ZoneOffset.UTC)).setParameter(2, sha256).executeUpdate();
        return record(sha256, false);
    }

    /** Every erasure, newest first. */
    @Transactional(Transactional.TxType.SUPPORTS)
    @SuppressWarnings("unchecked")
    public List<ErasureRecord> list(int limit) {
        return ((List<Object[]>) em.createNativeQuery(SELECT + " order by id desc fetch first " + limit + " rows only")
                .getResultList()).stream().map(ErasureBatch::record).toList();
    }

    /**
     * Up to {@code size} rows of {@code t} after key {@code after} (null: from the start) that may name
     * {@code address}: each that does is treated as {@link ErasurePolicy#decide} says; the rows changed are added to
     * the audit row's counts.
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    @SuppressWarnings("unchecked")
    public Page page(String sha256, ErasureTarget t, String address, Object after, int size, String actor, String why) {
        em.createNativeQuery("select id from erasure where address_sha256 = ?1 for update").setParameter(1, sha256)
                .getSingleResult();
        List<Object[]> rows = select(t, address, after, size).getResultList();
        Map<String, Long> counts = new TreeMap<>();
        for (Object[] row : rows) {
            if (t.match() == null && !names(t, row, address)) {
                continue; // a wildcard's match ("_" in the address), or a binary column that does not name it
            }
            String state = t.state() == null ? null : (String) row[1];
            ErasurePolicy.Action a = ErasurePolicy.decide(new ErasurePolicy.Facts(t.kind(), state), address);
            new ErasureRows(em, t, address, row[0], counts).apply(a, row, actor, why, discards);
        }
        if (!counts.isEmpty()) {
            String sql = "select counts from erasure where address_sha256 = ?1";
            Map<String, Long> total = ErasureRecord.counts((String) em.createNativeQuery(sql).setParameter(1, sha256)
                    .getSingleResult());
            counts.forEach((k, n) -> total.merge(k, n, Long::sum));
            em.createNativeQuery("update erasure set counts = ?1 where address_sha256 = ?2")
                    .setParameter(1, ErasureRecord.json(total)).setParameter(2, sha256).executeUpdate();
        }
        Object last = rows.isEmpty() ? after : rows.get(rows.size() - 1)[0];
        boolean advanced = last != null && !last.equals(after);
        return new Page(last, rows.size() == size && advanced);
    }

    private Query select(ErasureTarget t, String address, Object after, int size) {
        // job_recipient's key (job_id) is not unique: a batch starts at the last one's job again, not past it
        String from = after == null ? "1 = 1" : t.key() + (t.table().equals("job_recipient") ? " >= :after" : " > :after");
        String which;
        if (t.match() != null) {
            which = t.match();
        } else if (t.bytes().isEmpty()) {
            List<String> likes = new ArrayList<>();
            t.texts().forEach(c -> likes.add("lower(" + c + ") like :p"));
            which = "(" + String.join(" or ", likes) + ")";
        } else {
            which = "1 = 1"; // binary columns are searched here, one way for H2 and PostgreSQL
        }
        Query q = em.createNativeQuery("select " + String.join(", ", t.columns()) + " from " + t.table() + " where "
                + from + " and " + which + " order by " + t.key() + " fetch first " + size + " rows only");
        if (after != null) {
            q.setParameter("after", after);
        }
        if (t.match() != null) {
            q.setParameter("a", address);
        } else if (t.bytes().isEmpty()) {
            q.setParameter("p", "%" + address + "%");
        }
        return q;
    }

    private static boolean names(ErasureTarget t, Object[] row, String address) {
        int first = t.state() == null ? 1 : 2;
        for (int i = first; i < row.length; i++) {
            if (ErasurePolicy.names(text(row[i]), address)) {
                return true;
            }
        }
        return false;
    }

    static String text(Object value) {
        return value instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : (String) value;
    }

    private static final String SELECT = """
            select id, address_sha256, state, requested_by, reason, requested_at, finished_at, runs, counts
            from erasure""";

    private ErasureRecord record(String sha256, boolean lock) {
        return record((Object[]) em.createNativeQuery(SELECT + " where address_sha256 = ?1" + (lock ? " for update" : ""))
                .setParameter(1, sha256).getSingleResult());
    }

    private static ErasureRecord record(Object[] r) {
        return new ErasureRecord(((Number) r[0]).longValue(), (String) r[1], (String) r[2], (String) r[3], (String) r[4],
                instant(r[5]), instant(r[6]), ((Number) r[7]).intValue(), ErasureRecord.counts((String) r[8]), false);
    }

    private static Instant instant(Object v) {
        return v instanceof OffsetDateTime o ? o.toInstant() : v instanceof java.sql.Timestamp t ? t.toInstant()
                : v instanceof Instant i ? i : null;
    }

    /** The suppression list's key of (tenant, address), as the list and the ledger compute it. */
    static String suppressionKey(String tenant, String address) {
        return JobLedger.suppressionKey(tenant, address);
    }
}
