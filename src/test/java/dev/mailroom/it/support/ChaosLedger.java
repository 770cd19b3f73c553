package dev.mailroom.it.support;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.mailroom.it.support.PostgresServer;
import dev.mailroom.testsupport.SmtpTestServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The chaos suite's bookkeeping: after a scenario, every job of it is counted at the SMTP server (mails per
 * Message-ID) and in the database (its {@code mail_job} state, its {@code dead_letter} rows), and the
 * invariants are checked job by job; the report lines are kept for {@code report.json} and the text table.
 *
 * <p>Per job: more than one mail is a duplicate; no mail and no record that says why (dead-lettered,
 * discarded, bounced, suppressed, or a dead letter of it) is lost, and so is a job recorded as sent that the relay never got or an
 * {@code unknown} job (possibly sent) that it never got; a job that is not in a finished state, a job both
 * mailed and recorded as not sent, a dead-lettered job without exactly one dead letter, a dead letter of a job
 * whose own record is not {@code dead_lettered} (the broker's redelivery limit took it before the handler saw it),
 * and a dead letter without its full envelope are broken invariants. {@code unknown} jobs that the relay got once count as
 * sent and are listed in the table's own column, as are the {@code unknown} jobs an operator settled before the count
 * (the scenarios that kill a node do what the runbook says: mark-sent or send-again).
 */
public final class ChaosLedger {

    /** States that say the mail went to the relay. */
    public static final Set<String> SENT = Set.of("sent_to_provider", "delivered", "bounced", "complained");
    /** Finished states that say it did not, with a record why. */
    public static final Set<String> NOT_SENT = Set.of("dead_lettered", "discarded", "bounced_permanent", "suppressed",
            "duplicate_suppressed");

    /** One scenario's report line. {@code broken}: the invariants it broke, empty when it held. */
    public record Line(String scenario, int jobs, int sent, int deadLettered, int lost, int duplicates,
                double recoverySeconds, int unknown, List<String> broken, double wallSeconds) {

        public boolean held() {
            return lost == 0 && duplicates == 0 && broken.isEmpty();
        }

        public Map<String, Object> json() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("scenario", scenario);
            m.put("jobs", jobs);
            m.put("sent", sent);
            m.put("dead_lettered", deadLettered);
            m.put("lost", lost);
            m.put("duplicates", duplicates);
            m.put("recovery_seconds", Math.round(recoverySeconds * 10) / 10.0);
            // what the scenario cost, from its start to its count (the CI budget is made of these)
            m.put("wall_seconds", Math.round(wallSeconds * 10) / 10.0);
            return m;
        }
    }

    private final PostgresServer postgres;
    private final SmtpTestServer smtp;
    private final List<Line> lines = new ArrayList<>();
    private volatile java.time.Instant scenarioStart = java.time.Instant.now();
    /** The server logs whose lines about a broken job {@link #history} prints (none unless told). */
    private volatile java.util.function.Supplier<List<Path>> logs = List::of;

    public ChaosLedger(PostgresServer postgres, SmtpTestServer smtp) {
        this.postgres = postgres;
        this.smtp = smtp;
    }

    /** The nodes' server logs, read for what they say of a broken job. */
    public void logs(java.util.function.Supplier<List<Path>> serverLogs) {
        this.logs = serverLogs;
    }

    /** The states of the jobs whose message id starts with the prefix, by message id. */
    public Map<String, String> states(String prefix) throws SQLException {
        Map<String, String> out = new HashMap<>();
        try (Connection c = postgres.connect();
             PreparedStatement s = c.prepareStatement("select message_id, state from mail_job where message_id like ?")) {
            s.setString(1, prefix + "%");
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.put(r.getString(1), r.getString(2));
                }
            }
        }
        return out;
    }

    /**
     * PostgreSQL's prepared transactions (two-phase commit's first phase done, the second not yet): each holds its
     * locks until a transaction manager commits or rolls it back, whatever became of the connection that prepared it.
     */
    public List<String> preparedTransactions() throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = postgres.connect();
             // the tables it wrote (its locks outlive its session: pid null, under the virtual transaction of its
             // transaction id's lock): which of Mailroom's transactions it was
             PreparedStatement s = c.prepareStatement("select p.gid, p.prepared, p.owner, (select string_agg(distinct"
                     + " l.relation::regclass::text, ',') from pg_locks x join pg_locks l on l.virtualtransaction ="
                     + " x.virtualtransaction and l.pid is null join pg_class c on c.oid = l.relation and c.relkind = 'r'"
                     + " where x.locktype = 'transactionid' and x.transactionid = p.transaction and l.locktype = 'relation'"
                     + " and l.mode = 'RowExclusiveLock') from pg_prepared_xacts p order by p.prepared");
             ResultSet r = s.executeQuery()) {
            while (r.next()) {
                out.add(r.getString(1) + " prepared " + r.getTimestamp(2).toInstant() + " by " + r.getString(3)
                        + ", wrote " + r.getString(4));
            }
        }
        return out;
    }

    /** How many of the jobs are in a finished state (the send path is over for them). */
    public int finished(String prefix, Collection<String> ids) throws SQLException {
        Map<String, String> states = states(prefix);
        int n = 0;
        for (String id : ids) {
            if (finishedState(states.get(id))) {
                n++;
            }
        }
        return n;
    }

    /** Whether a job in this state (null: no record) is finished: the send path is over for it. */
    public static boolean finishedState(String state) {
        return state != null && (SENT.contains(state) || NOT_SENT.contains(state) || state.equals("unknown"));
    }

    /**
     * Of the {@code unknown} jobs an operator answered (marked sent or sent again), those whose answer has not yet
     * ended in a finished state, with their state: a job sent again is {@code received}, then {@code sending} while
     * its copy goes to the relay, so "no longer unknown" is not yet settled (a count then finds the copy's mail at the
     * relay beside a job in no finished state). One the answer left {@code unknown} (it was refused) is as settled as
     * it gets.
     */
    public static Map<String, String> stillSettling(Map<String, String> states, Collection<String> answered) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String id : answered) {
            if (!finishedState(states.get(id))) {
                out.put(id, states.get(id));
            }
        }
        return out;
    }

    /** Mails received per job (for the given message ids; the SMTP provider's Message-ID is derived from the key). */
    public Map<String, Integer> mails(Collection<String> ids) {
        Map<String, Integer> byMessageId = smtp.countsByMessageId();
        Map<String, Integer> out = new HashMap<>();
        for (String id : ids) {
            out.put(id, byMessageId.getOrDefault(Jobs.smtpMessageId(id), 0));
        }
        return out;
    }

    /** A scenario starts now: its line's wall time counts from here. */
    public void scenarioStarted() {
        scenarioStart = java.time.Instant.now();
    }

    /** Counts the scenario's jobs, checks the invariants, keeps and returns its report line. */
    public Line count(String scenario, String prefix, List<String> ids, double recoverySeconds, List<String> extraBroken)
            throws SQLException {
        return count(scenario, prefix, ids, recoverySeconds, extraBroken, 0);
    }

    /**
     * As {@link #count(String, String, List, double, List)}, after an operator settled {@code settledUnknown} jobs that
     * were {@code unknown} (marked sent or sent again): the line's unknown column counts them too.
     */
    public Line count(String scenario, String prefix, List<String> ids, double recoverySeconds, List<String> extraBroken,
               int settledUnknown) throws SQLException {
        Map<String, String> states = states(prefix);
        Map<String, Integer> mails = mails(ids);
        Map<String, List<DeadLetter>> deadLetters = new HashMap<>();
        for (DeadLetter d : deadLetters(prefix)) {
            deadLetters.computeIfAbsent(d.messageId(), k -> new ArrayList<>()).add(d);
        }
        int sent = 0;
        int dead = 0;
        int lost = 0;
        int duplicates = 0;
        int unknown = 0;
        Map<String, List<String>> broken = new LinkedHashMap<>();
        for (String id : ids) {
            String state = states.get(id);
            int n = mails.get(id);
            if (n > 0) {
                sent++;
                duplicates += n - 1;
            }
            if (state == null || !(SENT.contains(state) || NOT_SENT.contains(state) || state.equals("unknown"))) {
                int rows = deadLetters.getOrDefault(id, List.of()).size();
                if (rows > 0 && n == 0) {
                    // on the DLQ with its envelope (an operator sees it and can redrive it), but the job's own
                    // record does not say so: the broker's redelivery limit took it before the handler did
                    dead++;
                    broken.computeIfAbsent("dead-lettered (" + deadLetters.get(id).get(0).reason() + ") while its job is "
                            + state, k -> new ArrayList<>()).add(id);
                    continue;
                }
                broken.computeIfAbsent("not in a finished state", k -> new ArrayList<>()).add(id + "=" + state);
                if (n == 0) {
                    lost++;
                }
                continue;
            }
            if (state.equals("unknown")) {
                unknown++;
                if (n == 0) {
                    lost++;
                    broken.computeIfAbsent("unknown, never at the relay", k -> new ArrayList<>()).add(id);
                }
            } else if (SENT.contains(state) && n == 0) {
                lost++;
                broken.computeIfAbsent("recorded as sent, never reached the relay", k -> new ArrayList<>()).add(id);
            } else if (NOT_SENT.contains(state) && n > 0) {
                broken.computeIfAbsent("mailed and also " + state, k -> new ArrayList<>()).add(id);
            }
            if (state.equals("dead_lettered")) {
                dead++;
                int rows = deadLetters.getOrDefault(id, List.of()).size();
                if (rows != 1) {
                    broken.computeIfAbsent("dead-lettered with " + rows + " dead letters, not 1", k -> new ArrayList<>())
                            .add(id);
                }
            }
        }
        for (List<DeadLetter> rows : deadLetters.values()) {
            for (DeadLetter d : rows) {
                if (!d.complete()) {
                    broken.computeIfAbsent("dead letter without its full envelope", k -> new ArrayList<>())
                            .add(d.toString());
                }
            }
        }
        List<String> all = new ArrayList<>();
        broken.forEach((what, jobs) -> all.add(what + ": " + jobs.size() + " e.g. " + jobs.subList(0, Math.min(5, jobs.size()))));
        // a CI log keeps no server log: the broken jobs' own records are what says how they came to be so
        broken.values().stream().flatMap(List::stream).map(id -> id.split("=", 2)[0]).distinct().limit(3)
                .forEach(id -> System.err.println("[chaos] " + scenario + ": the records of " + id + ":\n" + history(id)));
        all.addAll(extraBroken);
        double wall = java.time.Duration.between(scenarioStart, java.time.Instant.now()).toMillis() / 1000.0;
        return keep(new Line(scenario, ids.size(), sent, dead, lost, duplicates, recoverySeconds, unknown + settledUnknown,
                all, wall));
    }

    /**
     * A job's attempts and timeline as stored, a line each, oldest first, then what the nodes' logs say of it; what
     * could not be read says so.
     */
    public String history(String messageId) {
        StringBuilder out = new StringBuilder();
        try (Connection c = postgres.connect();
             PreparedStatement attempts = c.prepareStatement("select a.attempt_number, a.jms_message_id, a.started_at,"
                     + " a.irrevocable_at, a.finished_at, a.outcome, a.failure_class, a.decision from job_attempt a"
                     + " join mail_job j on j.id = a.job_id where j.message_id = ? order by a.attempt_number");
             PreparedStatement events = c.prepareStatement("select e.at, e.type, e.actor, e.detail from job_event e"
                     + " join mail_job j on j.id = e.job_id where j.message_id = ? order by e.id")) {
            attempts.setString(1, messageId);
            try (ResultSet r = attempts.executeQuery()) {
                while (r.next()) {
                    out.append("  attempt ").append(r.getInt(1)).append(" by ").append(r.getString(2))
                            .append(": started ").append(r.getTimestamp(3)).append(", irrevocable ")
                            .append(r.getTimestamp(4)).append(", finished ").append(r.getTimestamp(5)).append(", ")
                            .append(r.getString(6)).append(" / ").append(r.getString(7)).append(" -> ")
                            .append(r.getString(8)).append('\n');
                }
            }
            events.setString(1, messageId);
            try (ResultSet r = events.executeQuery()) {
                while (r.next()) {
                    out.append("  ").append(r.getTimestamp(1)).append(' ').append(r.getString(2)).append(" (")
                            .append(r.getString(3)).append("): ").append(r.getString(4)).append('\n');
                }
            }
        } catch (SQLException e) {
            out.append("  not readable: ").append(e.getMessage()).append('\n');
        }
        java.util.regex.Pattern mention = java.util.regex.Pattern.compile(java.util.regex.Pattern.quote(messageId) + "(?!\\d)");
        for (Path log : logs.get()) {
            try (java.util.stream.Stream<String> lines = Files.lines(log, java.nio.charset.StandardCharsets.ISO_8859_1)) {
                lines.filter(l -> mention.matcher(l).find()).limit(40)
                        .forEach(l -> out.append("  ").append(log.getParent().getParent().getFileName()).append(": ")
                                .append(l, 0, Math.min(l.length(), 600)).append('\n'));
            } catch (IOException | UncheckedIOException e) {
                out.append("  ").append(log).append(" not readable: ").append(e.getMessage()).append('\n');
            }
        }
        return out.toString();
    }

    public synchronized Line keep(Line line) {
        lines.add(line);
        System.out.println("[chaos] " + format(line));
        return line;
    }

    public synchronized List<Line> lines() {
        return List.copyOf(lines);
    }

    /** A dead letter's envelope as stored; complete when every part an operator needs is there. */
    public record DeadLetter(long id, String messageId, String reason, String failureClass, String error, String errorType,
                      String sourceQueue, String sha256, boolean hasPayload, long payloadSize) {
        public boolean complete() {
            return !blank(reason) && !blank(failureClass) && !blank(error) && !blank(errorType) && !blank(sourceQueue)
                    && sha256 != null && sha256.length() == 64 && hasPayload && payloadSize >= 0;
        }

        private static boolean blank(String s) {
            return s == null || s.isBlank();
        }
    }

    /** The dead letters of jobs whose message id starts with the prefix. */
    public List<DeadLetter> deadLetters(String prefix) throws SQLException {
        return deadLetters("message_id like ?", prefix + "%");
    }

    /** The dead letters whose payload hash is one of these (jobs without a readable message id). */
    public Map<String, DeadLetter> deadLettersBySha(Set<String> shas, java.time.Instant since) throws SQLException {
        Map<String, DeadLetter> out = new HashMap<>();
        for (DeadLetter d : deadLetters("failed_at >= ?", java.sql.Timestamp.from(since))) {
            if (shas.contains(d.sha256())) {
                out.put(d.sha256(), d);
            }
        }
        return out;
    }

    private List<DeadLetter> deadLetters(String where, Object parameter) throws SQLException {
        List<DeadLetter> out = new ArrayList<>();
        try (Connection c = postgres.connect();
             PreparedStatement s = c.prepareStatement("select id, message_id, reason, failure_class, error, error_type,"
                     + " source_queue, payload_sha256, payload is not null, payload_size from dead_letter where " + where)) {
            s.setObject(1, parameter);
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    out.add(new DeadLetter(r.getLong(1), r.getString(2), r.getString(3), r.getString(4), r.getString(5),
                            r.getString(6), r.getString(7), r.getString(8), r.getBoolean(9), r.getLong(10)));
                }
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ the report

    public static String format(Line l) {
        return String.format("%-34s %7d %7d %8d %6d %6d %9.1f %7d %7.0f  %s", l.scenario(), l.jobs(), l.sent(),
                l.deadLettered(), l.lost(), l.duplicates(), l.recoverySeconds(), l.unknown(), l.wallSeconds(),
                l.held() ? "held" : "BROKEN " + l.broken());
    }

    /** The text table of every line so far, with the suite's wall time. */
    public String table(double wallSeconds) {
        StringBuilder b = new StringBuilder();
        b.append(String.format("%-34s %7s %7s %8s %6s %6s %9s %7s %7s  %s%n", "scenario", "jobs", "sent", "dead", "lost",
                "dups", "recovery", "unknown", "wall s", "invariants"));
        lines().forEach(l -> b.append(format(l)).append('\n'));
        b.append(String.format("chaos execution wall time (servers started once, scenarios in sequence): %.0f s%n",
                wallSeconds));
        return b.toString();
    }

    /** Writes {@code report.json} (one object per scenario, keys as chaos/README.md lists them) and {@code report.txt}. */
    public void write(Path dir, double wallSeconds) {
        try {
            Files.createDirectories(dir);
            List<Map<String, Object>> json = lines().stream().map(Line::json).toList();
            Files.writeString(dir.resolve("report.json"),
                    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(json));
            Files.writeString(dir.resolve("report.txt"), table(wallSeconds));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static Set<String> set(Collection<String> c) {
        return new HashSet<>(c);
    }
}
