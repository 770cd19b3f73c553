package dev.mailroom.platform.lease;

import jakarta.persistence.EntityManager;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The {@code lease} table (V15) on one database session, in the caller's transaction: reads a row and the
 * database's time, lets {@link LeaseRules} decide, and carries the decision out with an update conditional
 * on the version it read. Time is the database's ({@code current_timestamp}), so nodes whose clocks differ
 * (or a test that moved one node's Mailroom clock) still agree on when a lease expires. Plain SQL that H2
 * (MODE=PostgreSQL) and PostgreSQL both accept.
 */
public final class LeaseTable {

    /**
     * The outcome of one {@link #claim}: whether {@code node} holds the lease now, until when, and the token it
     * holds it with ({@link LeaseRules#fence}).
     */
    public record Claim(String name, LeaseAction action, boolean held, Instant expiresAt, long version, long token) {
    }

    private final EntityManager em;

    public LeaseTable(EntityManager em) {
        this.em = em;
    }

    /** Takes, renews or takes over {@code name} for {@code node} for {@code ttl}, or keeps away. */
    public Claim claim(String name, String node, Duration ttl) {
        Instant now = databaseTime();
        LeaseRules.Row row = find(name).orElse(null);
        if (row == null) { // a lease never asked for: its row, free; two nodes creating it at once make one row
            em.createNativeQuery("insert into lease (name, holder, expires_at, version) values (?1, null, ?2, 0) "
                            + "on conflict do nothing")
                    .setParameter(1, name).setParameter(2, Instant.EPOCH).executeUpdate();
            row = read(name);
        }
        LeaseAction action = LeaseRules.decide(row, node, now);
        if (action instanceof LeaseAction.KeepAway) {
            return new Claim(name, action, false, row.expiresAt(), row.version(), row.token());
        }
        Instant until = now.plus(ttl);
        String sql = action instanceof LeaseAction.Renew
                ? "update lease set holder = ?1, expires_at = ?2, version = version + 1 where name = ?3 and version = ?4"
                : "update lease set holder = ?1, expires_at = ?2, version = version + 1, token = version + 1, taken_at = ?5 "
                        + "where name = ?3 and version = ?4";
        var update = em.createNativeQuery(sql).setParameter(1, node).setParameter(2, until).setParameter(3, name)
                .setParameter(4, row.version());
        if (!(action instanceof LeaseAction.Renew)) {
            update.setParameter(5, now);
        }
        boolean won = update.executeUpdate() == 1;
        // lost: another node's update came first; the row is no longer the one decided on
        long token = !won ? row.token() : action instanceof LeaseAction.Renew ? row.token() : row.version() + 1;
        return new Claim(name, action, won, won ? until : row.expiresAt(), won ? row.version() + 1 : row.version(), token);
    }

    /** Gives {@code name} up if {@code node} holds it (a clean shutdown), so another node need not wait for expiry. */
    public boolean release(String name, String node) {
        return em.createNativeQuery("update lease set holder = null, version = version + 1 where name = ?1 and holder = ?2")
                .setParameter(1, name).setParameter(2, node).executeUpdate() == 1;
    }

    /**
     * {@link LeaseRules#fence} on the row read under its lock ({@code for update}), in the caller's transaction: the
     * lock holds until that transaction ends, so the write it guards commits before any other node's take-over.
     */
    public Fence fence(String name, String node, long token) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery(
                        "select name, holder, expires_at, version, token from lease where name = ?1 for update")
                .setParameter(1, name).getResultList();
        return rows.isEmpty() ? new Fence.Lost("no lease " + name)
                : LeaseRules.fence(row(rows.get(0)), node, token);
    }

    public LeaseRules.Row read(String name) {
        return find(name).orElseThrow(() -> new IllegalStateException("no lease " + name));
    }

    private java.util.Optional<LeaseRules.Row> find(String name) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("select name, holder, expires_at, version, token from lease where name = ?1")
                .setParameter(1, name).getResultList();
        return rows.stream().findFirst().map(LeaseTable::row);
    }

    /** Every lease row, by name. */
    public List<LeaseRules.Row> all() {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("select name, holder, expires_at, version, token from lease order by name")
                .getResultList();
        return rows.stream().map(LeaseTable::row).toList();
    }

    public Instant databaseTime() {
        return instant(em.createNativeQuery("select current_timestamp").getSingleResult());
    }

    private static LeaseRules.Row row(Object[] r) {
        return new LeaseRules.Row((String) r[0], (String) r[1], instant(r[2]), ((Number) r[3]).longValue(),
                ((Number) r[4]).longValue());
    }

    /** A timestamp column as the driver hands it over. */
    static Instant instant(Object value) {
        return dev.mailroom.platform.SqlTimestamps.instant(value);
    }
}
