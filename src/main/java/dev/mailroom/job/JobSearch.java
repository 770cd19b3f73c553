package dev.mailroom.job;

import dev.mailroom.platform.FilterText;
import dev.mailroom.platform.Refused;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.Query;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Finds jobs the way support asks for them ("did the password reset reach alice@…?"): by recipient (from
 * {@code job_recipient}: an exact normalised address, a domain, a prefix, a suffix or any part of one, as
 * {@link RecipientMatch} reads what support types),
 * message id, idempotency key, campaign, tenant, state and receipt time; newest first, keyset-paged by job id
 * (the {@code next} cursor is the last id of the page, so a page costs the same however deep it is).
 *
 * <p>The SQL is built by the pure {@link #sql} so the bench ({@code bench/jobs.sh}) times exactly what the
 * server runs. Each filter has an index in the search's order (V10 {@code (address, job_id)}, V13 the others);
 * with a recipient the order is {@code job_recipient.job_id desc}, so PostgreSQL reads the address's index
 * backwards and stops after one page. A suffix or a part is a {@code like '%…%'}, which the trigram index of
 * V16 answers on PostgreSQL ({@code bench/jobs.sh} times "alice" at a million jobs).
 */
@ApplicationScoped
public class JobSearch {

    /** The largest page. */
    public static final int MAX_LIMIT = 200;

    @PersistenceContext(unitName = "mailroom")
    EntityManager em;
    @Inject
    PayloadRedaction redaction;

    /** A search, parsed and valid: every member optional (null), {@code before} the cursor (exclusive). */
    public record Criteria(RecipientMatch recipient, String messageId, String idempotencyKey,
                           String campaignId, String tenant, JobState state, Instant from, Instant to,
                           Long before) {

        /**
         * From the text of a request; a bad value is {@link Refused.Invalid} with {@code invalid_<name>} and a
         * sentence saying what is expected. Blank means absent. The recipient's forms are {@link RecipientMatch}'s.
         */
        public static Criteria parse(String recipient, String messageId, String idempotencyKey, String campaignId,
                                     String tenant, String state, String from, String to, String cursor) {
            RecipientMatch match = RecipientMatch.parse(recipient);
            JobState s = null;
            if (FilterText.text(state) != null) {
                try {
                    s = JobState.valueOf(state.trim());
                } catch (IllegalArgumentException e) {
                    throw new Refused.Invalid("invalid_state", "state is one of "
                            + java.util.Arrays.toString(JobState.values()) + ": " + state);
                }
            }
            Long before = null;
            if (FilterText.text(cursor) != null) {
                try {
                    before = Long.parseLong(cursor.trim());
                } catch (NumberFormatException e) {
                    throw new Refused.Invalid("invalid_cursor", "cursor is the next value of a previous page: " + cursor);
                }
            }
            Instant f = FilterText.instant("from", from);
            Instant t = FilterText.instant("to", to);
            if (f != null && t != null && !f.isBefore(t)) {
                throw new Refused.Invalid("invalid_to", "to (" + t + ") must be after from (" + f + ")");
            }
            return new Criteria(match, FilterText.text(messageId), FilterText.text(idempotencyKey),
                    FilterText.text(campaignId), FilterText.text(tenant), s, f, t, before);
        }

    }

    /** A statement and its positional parameters (1-based in order). */
    public record Sql(String text, List<Object> parameters) { }

    /**
     * One found job: what a list row shows. Recipients normalised, to then cc then bcc; {@code sendAt} its
     * {@code send_at}, null for none.
     */
    public record Row(long id, String queue, String messageId, JobState state, String tenant, String campaignId,
                      Instant receivedAt, Instant updatedAt, List<String> recipients, Instant sendAt) { }

    /** A page, newest first; {@code next} is the cursor of the following page, null on the last one. */
    public record Page(List<Row> items, int limit, String next) { }

    /**
     * The page's statement: the summary columns of at most {@code fetch} rows (one more than the page, so
     * the caller knows whether there is a next one). With a search other than an exact address a job may come once per
     * matching recipient; {@link #search} keeps the first.
     */
    public static Sql sql(Criteria c, int fetch) {
        List<Object> p = new ArrayList<>();
        StringBuilder where = new StringBuilder(" where 1 = 1");
        String key = c.recipient() == null ? "j.id" : "r.job_id";
        StringBuilder from = new StringBuilder(" from mail_job j");
        if (c.recipient() != null) {
            from.append(" join job_recipient r on r.job_id = j.id");
            recipient(c.recipient(), where, p);
        }
        filter(where, p, "j.message_id", c.messageId());
        filter(where, p, "j.idempotency_key", c.idempotencyKey());
        filter(where, p, "j.campaign_id", c.campaignId());
        filter(where, p, "j.tenant", c.tenant());
        filter(where, p, "j.state", c.state() == null ? null : c.state().name());
        if (c.from() != null) {
            where.append(" and j.received_at >= ?");
            p.add(java.sql.Timestamp.from(c.from()));
        }
        if (c.to() != null) {
            where.append(" and j.received_at < ?");
            p.add(java.sql.Timestamp.from(c.to()));
        }
        if (c.before() != null) {
            where.append(" and ").append(key).append(" < ?");
            p.add(c.before());
        }
        p.add(fetch);
        return new Sql("select j.id, j.queue, j.message_id, j.state, j.tenant, j.campaign_id, j.received_at, "
                + "j.updated_at, j.send_at" + from + where + " order by " + key + " desc limit ?", p);
    }

    /**
     * The recipient's condition, saying what {@link RecipientMatch#matches} says: an address or a domain is an
     * equality on its index ({@code (address, job_id)}, {@code (domain, job_id)}); a prefix a range of the address
     * index; a suffix or a part a {@code like} that PostgreSQL answers from the trigram index of V16 and H2 by reading
     * the addresses (its databases are the embedded default's, small). A {@code like} escapes its wildcards, so
     * {@code _} and {@code %} are matched as themselves.
     */
    private static void recipient(RecipientMatch m, StringBuilder where, List<Object> p) {
        String text = m.text();
        if (m instanceof RecipientMatch.Address) {
            where.append(" and r.address = ?");
            p.add(text);
        } else if (m instanceof RecipientMatch.Domain) {
            where.append(" and r.domain = ?");
            p.add(text);
        } else if (m instanceof RecipientMatch.Prefix) {
            // The range makes it an index read in any collation; the like keeps it exact.
            char last = text.charAt(text.length() - 1);
            where.append(" and r.address >= ? and r.address < ? and r.address like ? escape '!'");
            p.add(text);
            p.add(text.substring(0, text.length() - 1) + (char) (last + 1));
            p.add(literal(text) + "%");
        } else if (m instanceof RecipientMatch.Suffix) {
            where.append(" and r.address like ? escape '!'");
            p.add("%" + literal(text));
        } else {
            where.append(" and r.address like ? escape '!'");
            p.add("%" + literal(text) + "%");
        }
    }

    /** {@code text} as a {@code like} pattern that matches it literally (escape character {@code !}). */
    private static String literal(String text) {
        return text.replace("!", "!!").replace("%", "!%").replace("_", "!_");
    }

    private static void filter(StringBuilder where, List<Object> p, String column, String value) {
        if (value != null) {
            where.append(" and ").append(column).append(" = ?");
            p.add(value);
        }
    }

    /**
     * A page of at most {@code limit} jobs matching {@code c}, newest first. Unless {@code reveal}, the
     * recipients of a kind named in {@code mailroom.redact.fields} ({@code to}, {@code cc}, {@code bcc}) are
     * masked as a payload's would be.
     */
    @SuppressWarnings("unchecked")
    public Page search(Criteria c, int limit, boolean reveal) {
        int n = Math.max(1, Math.min(limit, MAX_LIMIT));
        Sql sql = sql(c, n + 1);
        Query q = em.createNativeQuery(sql.text());
        for (int i = 0; i < sql.parameters().size(); i++) {
            q.setParameter(i + 1, sql.parameters().get(i));
        }
        List<Object[]> raw = q.getResultList();
        Map<Long, Object[]> distinct = new LinkedHashMap<>();
        for (Object[] r : raw) {
            distinct.putIfAbsent(((Number) r[0]).longValue(), r);
        }
        List<Object[]> page = new ArrayList<>(distinct.values());
        boolean more = raw.size() > n;
        if (page.size() > n) {
            page = page.subList(0, n);
        }
        Map<Long, List<String>> recipients = recipients(page.stream().map(r -> ((Number) r[0]).longValue()).toList(),
                reveal);
        List<Row> rows = page.stream().map(r -> {
            long id = ((Number) r[0]).longValue();
            return new Row(id, (String) r[1], (String) r[2], JobState.valueOf((String) r[3]), (String) r[4],
                    (String) r[5], instant(r[6]), instant(r[7]), recipients.getOrDefault(id, List.of()), instant(r[8]));
        }).toList();
        String next = more && !rows.isEmpty() ? Long.toString(rows.get(rows.size() - 1).id()) : null;
        return new Page(rows, n, next);
    }

    private Map<Long, List<String>> recipients(List<Long> jobIds, boolean reveal) {
        if (jobIds.isEmpty()) {
            return Map.of();
        }
        return em.createQuery("select r from JobRecipient r where r.jobId in :ids order by r.jobId, r.position",
                        JobRecipient.class)
                .setParameter("ids", jobIds)
                .getResultStream()
                .collect(Collectors.groupingBy(JobRecipient::getJobId, LinkedHashMap::new,
                        Collectors.mapping(r -> reveal ? r.getAddress() : redaction.recipient(r.getKind(), r.getAddress()),
                                Collectors.toList())));
    }

    private static Instant instant(Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof Instant i) {
            return i;
        }
        if (value instanceof java.sql.Timestamp t) {
            return t.toInstant();
        }
        if (value instanceof OffsetDateTime o) {
            return o.toInstant();
        }
        if (value instanceof java.time.ZonedDateTime z) {
            return z.toInstant();
        }
        throw new IllegalStateException("not a timestamp: " + value.getClass());
    }

}
