package dev.mailroom.bench;

import dev.mailroom.it.support.PostgresServer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationVersion;

/**
 * Months of history in a fresh PostgreSQL before Mailroom first boots on it (bench/README.md, "History"): the schema
 * from the project's migrations, then {@code jobs} finished jobs with the rows the send path writes for each (claim,
 * attempts, recipients, timeline) and {@code deadLetters} dead letters, all by {@code insert ... select from
 * generate_series} (no API, no broker), then {@code vacuum analyze} as autovacuum would have left a live database.
 *
 * <p>The jobs ended between {@link #NEWEST_DAYS} and {@link #NEWEST_DAYS} + {@link #SPAN_DAYS} days ago, evenly, so a
 * retention of {@link #NEWEST_DAYS} days or less has every one of them to remove and the default (30 days) most.
 * Their states are the removable finished ones ({@code JobRetentionPolicy.REMOVABLE}), weighted as a transactional
 * service sees them; a job that was sent has an accepted attempt (every 10th one a failed attempt and a retry first),
 * every job a {@code to} recipient (every 5th a {@code cc} too) and the timeline entries the code writes for its path
 * (a job no webhook settled has its {@code delivery_silent} entry, as the delivery watch leaves it).
 * The dead letters are {@link DeadLetterQueryBench}'s rows, loaded at V7 so V8 back-fills their counts as on a live
 * database; the resolved ones among the first are linked to dead-lettered jobs, so retention detaches them.
 *
 * <p>The retention lease is held by {@value #LEASE_HOLDER} until {@link #releaseRetention}: Mailroom boots on the
 * history without removing any of it, and the bench says when the purge begins.
 */
final class HistorySeed {

    static final int NEWEST_DAYS = 2;
    static final int SPAN_DAYS = 180;
    static final String LEASE_HOLDER = "bench-history";
    /** message_id prefix of the seeded jobs (the bench's own jobs are {@code bench-...}). */
    static final String PREFIX = "hist-";

    /**
     * State of job g by {@code g % 40}: 24 delivered, 8 sent_to_provider (no webhook came), 2 bounced, 1 complained,
     * 1 bounced_permanent, 1 dead_lettered, 1 discarded, 1 duplicate_suppressed, 1 suppressed.
     */
    static final String STATES = "case when g % 40 < 24 then 'delivered' when g % 40 < 32 then 'sent_to_provider' "
            + "when g % 40 < 34 then 'bounced' when g % 40 = 34 then 'complained' "
            + "when g % 40 = 35 then 'bounced_permanent' when g % 40 = 36 then 'dead_lettered' "
            + "when g % 40 = 37 then 'discarded' when g % 40 = 38 then 'duplicate_suppressed' else 'suppressed' end";
    /** States whose job never reached a provider: no attempt, no sent_at. */
    private static final String NOT_SENT = "('discarded', 'duplicate_suppressed', 'suppressed')";

    private HistorySeed() {
    }

    /** Seeds {@code pg} (fresh, no schema yet); returns what was loaded and how long it took, one line each. */
    static List<String> seed(PostgresServer pg, int jobs, int deadLetters, Instant now) {
        List<String> out = new ArrayList<>();
        try (Connection c = pg.connect()) {
            long t0 = System.nanoTime();
            migrate(pg, MigrationVersion.fromVersion("7"));
            if (deadLetters > 0) {
                DeadLetterQueryBench.load(c, deadLetters, now);
            }
            migrate(pg, MigrationVersion.LATEST);
            long t1 = System.nanoTime();
            loadJobs(c, jobs, now);
            long t2 = System.nanoTime();
            c.setAutoCommit(true);
            try (Statement s = c.createStatement()) {
                s.execute("insert into lease (name, holder, expires_at, version, taken_at, token) values ('"
                        + dev.mailroom.job.JobRetention.LEASE + "', '" + LEASE_HOLDER + "', now() + interval '1 day', 1, "
                        + "now(), 1)");
                s.execute("vacuum analyze");
            }
            long t3 = System.nanoTime();
            out.add(String.format(Locale.ROOT, "history seeded: %,d dead letters with the schema in %.1f s, %,d jobs in "
                    + "%.1f s, vacuum analyze %.1f s", deadLetters, (t1 - t0) / 1e9, jobs, (t2 - t1) / 1e9, (t3 - t2) / 1e9));
            out.add("history rows: " + counts(c) + "; database " + BenchDatabase.scalar(c,
                    "select pg_size_pretty(pg_database_size(current_database()))"));
        } catch (SQLException e) {
            throw new IllegalStateException("seeding the history failed: " + e.getMessage(), e);
        }
        return out;
    }

    /** Rows of every table the history fills, e.g. {@code mail_job 1000000, job_event 3712500, ...}. */
    static String counts(Connection c) throws SQLException {
        StringBuilder b = new StringBuilder();
        for (String table : List.of("mail_job", "send_claim", "job_attempt", "job_recipient", "job_event",
                "dead_letter")) {
            b.append(b.length() == 0 ? "" : ", ").append(table).append(' ')
                    .append(BenchDatabase.scalar(c, "select count(*) from " + table));
        }
        return b.toString();
    }

    /** Lets Mailroom's retention take its lease at its next tick (the bench held it since seeding). */
    static void releaseRetention(PostgresServer pg) {
        try (Connection c = pg.connect(); Statement s = c.createStatement()) {
            s.executeUpdate("update lease set holder = null, expires_at = now(), version = version + 1 where name = '"
                    + dev.mailroom.job.JobRetention.LEASE + "' and holder = '" + LEASE_HOLDER + "'");
        } catch (SQLException e) {
            throw new IllegalStateException("releasing the retention lease failed: " + e.getMessage(), e);
        }
    }

    /** Seeded jobs still in the database. */
    static long jobsLeft(PostgresServer pg) {
        try (Connection c = pg.connect()) {
            return Long.parseLong(BenchDatabase.scalar(c, "select count(*) from mail_job where message_id like '"
                    + PREFIX + "%'"));
        } catch (SQLException e) {
            throw new IllegalStateException("counting the seeded jobs failed: " + e.getMessage(), e);
        }
    }

    private static void migrate(PostgresServer pg, MigrationVersion target) {
        Flyway.configure().dataSource(pg.jdbcUrl(), pg.user(), pg.password()).locations("classpath:db/migration")
                .outOfOrder(true).target(target).load().migrate();
    }

    private static void loadJobs(Connection c, int jobs, Instant now) throws SQLException {
        c.setAutoCommit(false);
        // job g ended at "at" (g = 1 the oldest); it was received 5 s before and its attempt took 1 s
        String x = "(select g, " + STATES + " as state, timestamptz '" + now + "' - interval '" + NEWEST_DAYS
                + " days' - ((" + jobs + " - g)::bigint * interval '" + SPAN_DAYS * 86400L / 1000 + " seconds') / "
                + Math.max(1, jobs / 1000) + " as at from generate_series(1, " + jobs + ") g) x";
        String sent = "x.state not in " + NOT_SENT;
        try (Statement s = c.createStatement()) {
            s.execute("insert into mail_job (id, queue, message_id, idempotency_key, tenant, campaign_id, category, "
                    + "state, provider, provider_message_id, attempt_count, trace_id, jms_message_id, expires_at, "
                    + "received_at, updated_at, sent_at, subject, queued_at) "
                    + "select g, 'mail.send', '" + PREFIX + "' || g, '" + PREFIX + "key-' || g, 'tenant-' || (g % 50), "
                    + "'campaign-' || (g % 500), case when g % 3 = 0 then 'password_reset' else 'transactional' end, "
                    + "state, case when " + sent + " then 'smtp' end, case when " + sent + " then '<' || md5(g::text) "
                    + "|| '@smtp.example.com>' end, case when " + sent + " then 1 + (g % 10 = 0)::int else 0 end, "
                    + "md5(g::text), 'ID:' || md5(g::text), at + interval '1 day', at - interval '5 seconds', at, "
                    + "case when " + sent + " then at - interval '4 seconds' end, 'Your receipt #' || g, "
                    + "at - interval '6 seconds' from " + x);
            s.execute("alter table mail_job alter column id restart with " + (jobs + 1));
            s.execute("insert into send_claim (idempotency_key, job_id, claimed_at) select '" + PREFIX
                    + "key-' || g, g, at - interval '5 seconds' from " + x);
            // every 10th sent job failed once (a 421 from the relay) and was retried
            s.execute("insert into job_attempt (job_id, attempt_number, jms_message_id, provider, started_at, "
                    + "irrevocable_at, finished_at, outcome, code, enhanced_code, response, failure_class, "
                    + "consumed_attempt, decision) select g, 1, 'ID:' || md5(g::text), 'smtp', at - interval '5 seconds', "
                    + "null, at - interval '5 seconds', 'rejected', '421', '4.3.0', '421 4.3.0 Try again later', "
                    + "'transient', true, 'retry_after PT2S' from " + x + " where " + sent + " and g % 10 = 0");
            s.execute("insert into job_attempt (job_id, attempt_number, jms_message_id, provider, started_at, "
                    + "irrevocable_at, finished_at, outcome, code, enhanced_code, response, consumed_attempt) "
                    + "select g, 1 + (g % 10 = 0)::int, 'ID:' || md5(g::text), 'smtp', at - interval '5 seconds', "
                    + "at - interval '5 seconds', at - interval '4 seconds', 'accepted', '250', '2.0.0', "
                    + "'250 2.0.0 Ok: queued as ' || upper(substr(md5(g::text), 1, 10)), true from " + x + " where "
                    + sent);
            s.execute("insert into job_recipient (job_id, position, kind, address, delivery_state, delivery_at) "
                    + "select g, 0, 'to', 'user' || (g % 250000) || '@d' || (g % 1000) || '.example', "
                    + "case when state = 'delivered' then 'delivered' when state like 'bounced%' then 'bounced' end, "
                    + "case when state in ('delivered', 'bounced', 'bounced_permanent') then at end from " + x);
            s.execute("insert into job_recipient (job_id, position, kind, address) select g, 1, 'cc', 'team' || "
                    + "(g % 5000) || '@example.com' from " + x + " where g % 5 = 0");
            timeline(s, x, sent);
            // resolved dead letters belong to dead-lettered jobs: retention detaches them when it removes the job
            s.execute("update dead_letter d set job_id = j.id from (select id, row_number() over (order by id) as n "
                    + "from mail_job where state = 'dead_lettered') j, (select id, row_number() over (order by id) as n "
                    + "from dead_letter where status <> 'open') r where d.id = r.id and r.n = j.n");
        }
        c.commit();
    }

    /** The entries the send path writes (received, attempt_started, sent...) and those of the job's later fate. */
    private static void timeline(Statement s, String x, String sent) throws SQLException {
        String insert = "insert into job_event (job_id, at, type, detail, actor) ";
        s.execute(insert + "select g, at - interval '5 seconds', 'received', 'from mail.send as JMS message ID:' || "
                + "md5(g::text), 'system' from " + x);
        s.execute(insert + "select g, at - interval '5 seconds', 'attempt_started', 'attempt 1 through smtp', 'system' "
                + "from " + x + " where " + sent);
        s.execute(insert + "select g, at - interval '5 seconds', e.type, e.detail, 'system' from " + x
                + " cross join (values ('attempt_failed', 'attempt 1: transient (421 4.3.0 Try again later)'), "
                + "('retry_scheduled', 'retry 2 in 2 s'), ('attempt_started', 'attempt 2 through smtp')) e(type, detail)"
                + " where " + sent + " and g % 10 = 0");
        s.execute(insert + "select g, at - interval '4 seconds', 'sent', 'accepted by smtp: 250 2.0.0 Ok', 'system' "
                + "from " + x + " where " + sent);
        s.execute(insert + "select g, at, state, 'webhook from smtp: ' || state, 'webhook' from " + x
                + " where state in ('delivered', 'bounced', 'bounced_permanent', 'complained', 'dead_lettered')");
        s.execute(insert + "select g, at, state, 'not sent: ' || state, 'system' from " + x + " where state in "
                + NOT_SENT);
        // no webhook came: the delivery watch said so once, two hours after the send (reconcile.DeliveryWatch)
        s.execute(insert + "select g, at + interval '2 hours', 'delivery_silent', 'no event from smtp 2 hours after the "
                + "send', 'system' from " + x + " where state = 'sent_to_provider'");
    }
}
