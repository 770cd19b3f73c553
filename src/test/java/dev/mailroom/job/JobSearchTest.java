package dev.mailroom.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.platform.Refused;
import dev.mailroom.testsupport.ComponentDatabase;
import jakarta.persistence.EntityManager;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Job search ({@link JobSearch}) and the job view's recipients ({@link JobQueries}) against the real schema
 * (the Flyway migrations, V13 included, on H2 in PostgreSQL mode) with the server's Hibernate: each filter,
 * the three recipient matches, keyset paging without gaps or repeats, redaction of recipients, and the 400
 * reasons of bad parameters. The million-row timing is {@code bench/jobs.sh}'s.
 */
class JobSearchTest {

    private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");
    private static ComponentDatabase db;

    @BeforeAll
    static void rows() {
        db = ComponentDatabase.h2(JobLedgerComponentTest.ENTITIES);
        db.run(em -> {
            // id, state, tenant, campaign, minutes after T0, recipients (kind:address)
            job(em, 1, "sent_to_provider", "acme", "welcome", 0, "to:alice@example.com");
            job(em, 2, "bounced_permanent", "acme", "reset", 1, "to:alice@example.com", "cc:carol@example.org");
            job(em, 3, "delivered", "globex", "reset", 2, "to:bob@example.org", "bcc:dave@example.org");
            job(em, 4, "sent_to_provider", "acme", "welcome", 3, "to:alina@example.com");
            job(em, 5, "bounced", "globex", null, 4, "to:alice@example.com");
            job(em, 6, "sent_to_provider", "acme", null, 5, "to:al%x@example.net");
            job(em, 7, "dead_lettered", "acme", null, 6, "to:policy571-alice@example.net", "cc:alice@example.com");
        });
    }

    @AfterAll
    static void close() {
        db.close();
    }

    private static void job(EntityManager em, long id, String state, String tenant, String campaign, int minutes,
                            String... recipients) {
        Instant at = T0.plusSeconds(60L * minutes);
        em.createNativeQuery("insert into mail_job (id, queue, message_id, idempotency_key, tenant, campaign_id, state, "
                        + "received_at, updated_at) values (?, 'mail.send', ?, ?, ?, ?, ?, ?, ?)")
                .setParameter(1, id).setParameter(2, "msg-" + id).setParameter(3, "key-" + id).setParameter(4, tenant)
                .setParameter(5, campaign).setParameter(6, state).setParameter(7, java.sql.Timestamp.from(at))
                .setParameter(8, java.sql.Timestamp.from(at.plusSeconds(5))).executeUpdate();
        for (int i = 0; i < recipients.length; i++) {
            String[] r = recipients[i].split(":", 2);
            em.persist(new JobRecipient(id, i, r[0], r[1]));
        }
    }

    private static JobSearch.Page page(PayloadRedaction redaction, JobSearch.Criteria criteria, int limit, boolean reveal) {
        return with(redaction, s -> s.search(criteria, limit, reveal));
    }

    private static <T> T with(PayloadRedaction redaction, Function<JobSearch, T> work) {
        EntityManager em = db.session();
        try {
            JobSearch search = new JobSearch();
            search.em = em;
            search.redaction = redaction;
            return work.apply(search);
        } finally {
            em.close();
        }
    }

    private static List<Long> ids(String recipient, String state, String tenant, String campaign, String from,
                                  String to) {
        return with(PayloadRedaction.of(""), s -> s.search(JobSearch.Criteria.parse(recipient, null, null, campaign,
                tenant, state, from, to, null), 50, false).items().stream().map(JobSearch.Row::id).toList());
    }

    private static List<Long> ids(String recipient) {
        return ids(recipient, null, null, null, null, null);
    }

    @Test
    void anExactRecipientFindsItsJobsNewestFirstWhateverTheCaseOrDisplayName() {
        assertThat(ids("alice@example.com")).containsExactly(7L, 5L, 2L, 1L);
        assertThat(ids("  Alice <ALICE@Example.com> ")).containsExactly(7L, 5L, 2L, 1L);
        assertThat(ids("carol@example.org")).containsExactly(2L);
        assertThat(ids("nobody@example.com")).isEmpty();
    }

    @Test
    void aDomainFindsEachJobOnceEvenWithSeveralRecipientsThere() {
        assertThat(ids("@example.org")).containsExactly(3L, 2L);
        assertThat(ids("@Example.COM")).containsExactly(7L, 5L, 4L, 2L, 1L);
    }

    @Test
    void aPrefixMatchesTheStartOfTheAddressOnlyAndTakesLikeCharactersLiterally() {
        assertThat(ids("ali*")).containsExactly(7L, 5L, 4L, 2L, 1L);
        assertThat(ids("alin*")).containsExactly(4L);
        assertThat(ids("al%*")).containsExactly(6L);
        assertThat(ids("a_ice*")).isEmpty();
    }

    @Test
    void aPartOfAnAddressFindsEveryJobWithOneContainingItOnceAndAsTheSqlSays() {
        assertThat(ids("alice")).containsExactly(7L, 5L, 2L, 1L);
        assertThat(ids("*ALICE*")).containsExactly(7L, 5L, 2L, 1L);
        assertThat(ids("-alice@")).containsExactly(7L);
        assertThat(ids("*example.net")).containsExactly(7L, 6L);
        assertThat(ids("l%x")).as("a like wildcard is matched as itself").containsExactly(6L);
        assertThat(ids("l_ce")).isEmpty();
        JobSearch.Sql sql = JobSearch.sql(JobSearch.Criteria.parse("alice", null, null, null, null, null, null, null,
                null), 51);
        assertThat(sql.text()).contains("r.address like ? escape '!'").endsWith("order by r.job_id desc limit ?");
        assertThat(sql.parameters()).containsExactly("%alice%", 51);
    }

    @Test
    void everyOtherFilterNarrowsTheSearchAndTheyCombine() {
        assertThat(ids(null, "bounced_permanent", null, null, null, null)).containsExactly(2L);
        assertThat(ids(null, null, "globex", null, null, null)).containsExactly(5L, 3L);
        assertThat(ids(null, null, null, "welcome", null, null)).containsExactly(4L, 1L);
        assertThat(ids("alice@example.com", null, "acme", "reset", null, null)).containsExactly(2L);
        assertThat(ids(null, null, null, null, T0.plusSeconds(60).toString(), T0.plusSeconds(240).toString()))
                .containsExactly(4L, 3L, 2L);
        assertThat(page(PayloadRedaction.of(""), JobSearch.Criteria.parse(null, "msg-3", null, null,
                null, null, null, null, null), 50, false).items())
                .extracting(JobSearch.Row::id).containsExactly(3L);
        assertThat(page(PayloadRedaction.of(""), JobSearch.Criteria.parse(null, null, "key-4", null,
                null, null, null, null, null), 50, false).items())
                .extracting(JobSearch.Row::id).containsExactly(4L);
    }

    @Test
    void pagesFollowTheCursorWithoutGapOrRepeatAndTheLastHasNoNext() {
        for (String recipient : new String[] {null, "@example.com", "ali*", "alice"}) {
            List<Long> all = new ArrayList<>();
            String cursor = null;
            int pages = 0;
            do {
                String c = cursor;
                JobSearch.Page page = with(PayloadRedaction.of(""), s -> s.search(JobSearch.Criteria.parse(recipient,
                        null, null, null, null, null, null, null, c), 2, false));
                page.items().forEach(r -> all.add(r.id()));
                assertThat(page.items()).hasSizeLessThanOrEqualTo(2);
                cursor = page.next();
                pages++;
            } while (cursor != null && pages < 10);
            assertThat(all).as("recipient " + recipient).isEqualTo(ids(recipient)).doesNotHaveDuplicates();
        }
        assertThat(ids(null)).containsExactly(7L, 6L, 5L, 4L, 3L, 2L, 1L);
    }

    @Test
    void aRowCarriesTheJobAndItsRecipientsInOrderMaskedForAViewerWhenTheirKindIsRedacted() {
        JobSearch.Row row = with(PayloadRedaction.of(""), s -> s.search(JobSearch.Criteria.parse("carol@example.org",
                null, null, null, null, null, null, null, null), 50, false).items().get(0));
        assertThat(row).isEqualTo(new JobSearch.Row(2, "mail.send", "msg-2", JobState.bounced_permanent, "acme",
                "reset", T0.plusSeconds(60), T0.plusSeconds(65), List.of("alice@example.com", "carol@example.org"), null));
        PayloadRedaction ccHidden = PayloadRedaction.of("cc");
        assertThat(page(ccHidden, JobSearch.Criteria.parse("carol@example.org", null, null, null, null,
                null, null, null, null), 50, false).items().get(0).recipients())
                .containsExactly("alice@example.com", PayloadRedaction.MASK);
        assertThat(page(ccHidden, JobSearch.Criteria.parse("carol@example.org", null, null, null, null,
                null, null, null, null), 50, true).items().get(0).recipients())
                .containsExactly("alice@example.com", "carol@example.org");
    }

    @Test
    void theJobViewListsEachRecipientWithItsDeliveryState() {
        db.run(em -> em.find(JobRecipient.class, new JobRecipient.Key(3L, 0))
                .delivery("delivered", "250 2.0.0 OK", T0.plusSeconds(300)));
        EntityManager em = db.session();
        try {
            JobQueries queries = new JobQueries();
            queries.em = em;
            queries.redaction = PayloadRedaction.of("bcc");
            JobQueries.JobView view = queries.byMessageId("msg-3", null, false).get(0);
            assertThat(view.id()).isEqualTo(3L);
            assertThat(view.recipients()).containsExactly(
                    new JobQueries.RecipientView(0, "to", "bob@example.org", "delivered", "250 2.0.0 OK",
                            T0.plusSeconds(300), "delivered"),
                    new JobQueries.RecipientView(1, "bcc", PayloadRedaction.MASK, null, null, null, "not_yet_known"));
            assertThat(queries.byMessageId("msg-3", null, true).get(0).recipients().get(1).address())
                    .isEqualTo("dave@example.org");
        } finally {
            em.close();
        }
    }

    @Test
    void aSearchByRecipientReadsTheAddressIndexInItsOwnOrder() {
        JobSearch.Sql sql = JobSearch.sql(JobSearch.Criteria.parse("alice@example.com", null, null, null, null, null,
                null, null, "42"), 51);
        assertThat(sql.text()).contains("r.address = ?").contains("r.job_id < ?").endsWith("order by r.job_id desc limit ?");
        assertThat(sql.parameters()).containsExactly("alice@example.com", 42L, 51);
    }

    @Test
    void badParametersAreRefusedWithAReasonNamingThem() {
        String[][] cases = {
            {"al", null, null, null, null, "invalid_recipient"},
            {"@", null, null, null, null, "invalid_recipient"},
            {"a*", null, null, null, null, "invalid_recipient"},
            {"a*b@example.com", null, null, null, null, "invalid_recipient"},
            {"@a@b", null, null, null, null, "invalid_recipient"},
            {null, "nope", null, null, null, "invalid_state"},
            {null, null, "yesterday", null, null, "invalid_from"},
            {null, null, null, "2026-11-30 23:00", null, "invalid_to"},
            {null, null, "2026-11-30T10:00:00Z", "2026-11-30T09:00:00Z", null, "invalid_to"},
            {null, null, null, null, "abc", "invalid_cursor"},
        };
        for (String[] c : cases) {
            assertThatThrownBy(() -> JobSearch.Criteria.parse(c[0], null, null, null, null, c[1], c[2], c[3], c[4]))
                    .as(String.join(",", java.util.Arrays.asList(c)))
                    .isInstanceOfSatisfying(Refused.Invalid.class, e -> assertThat(e.reason()).isEqualTo(c[5]));
        }
    }
}
