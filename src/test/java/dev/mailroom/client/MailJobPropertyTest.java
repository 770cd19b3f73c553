package dev.mailroom.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.job.JobParser;
import dev.mailroom.job.ParseResult;
import dev.mailroom.job.ParseResult.Parsed;
import dev.mailroom.job.ParseResult.Rejected;
import dev.mailroom.job.SendJob;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Over seeded random builder calls (good and bad addresses, headers, ids, texts with control characters, surrogates
 * and separators, both content shapes, mixed and missing): every job the client builds is read by the server's parser
 * as the same job, and every job it refuses is refused by the server with the same reason. The seed is fixed so a
 * failure repeats; the counts show both sides were exercised.
 */
class MailJobPropertyTest {

    private static final long SEED = 20261204L;
    private static final int JOBS = 3_000;

    private static final String[] MAILBOXES = {"alice@example.com", "Bob Smith <bob@example.org>", "x@y", "a.b+c@d-e.example",
            "Ünïcode <u@exämple.com>", "bad", "a@b..c", "a b@c.d", "<a@b.c>", "\"Q\" <q@example.com>", "a@b.c\n", "", "@x.y",
            "Zoë <zoe@例え.jp>", "a@b.c>", "a,b@c.d"};
    private static final String[] TEXTS = {"Hello", "", "Grüße 👋", "line\nbreak", "tab\there", "nul\u0000", "sep\u2028",
            "del\u007F", "lone \uD800 surrogate", "https://shop.example/u", "http://shop.example/u", "https://a.example/x,y",
            "u@shop.example", "mailto:u@shop.example", "x".repeat(998), "y".repeat(999), "{{name}}", "<b>bold</b>", "c1 \u0085"};
    private static final String[] IDS = {"m-1", "", "id with space", "ctl\u0001", "i".repeat(200), "i".repeat(201),
            "order/7", "ü"};
    private static final String[] HEADER_NAMES = {"X-Order", "List-Unsubscribe", "Subject", "content-type", "X-Mailroom-Id",
            "Bad Name", "", "x".repeat(101), "Return-Path", "X-Ünicode", "X_ok"};
    private static final String[] FILENAMES = {"invoice.pdf", "", "../x.pdf", "a\\b", "Rechnung März.pdf", "a\r\nb.txt",
            "f".repeat(256)};
    private static final String[] CONTENT_TYPES = {"application/pdf", "text/calendar; method=REQUEST; charset=UTF-8",
            "pdf", "", "text/plain; charset=\"utf-8\"", "application/pdf\n"};
    private static final String[] URLS = {"https://files.shop.example/a.pdf", "http://files.shop.example/a.pdf",
            "ftp://files.shop.example/a.pdf", "https://files.shop.example/a b.pdf", ""};
    private static final String[] CHECKSUMS = {"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08", "abc", ""};
    private static final String[] TEMPLATES = {"welcome", "password-reset", "a.b_c-d", "../x", "", "t".repeat(101)};

    private final Random random = new Random(SEED);

    @Test
    void whatTheClientBuildsTheServerReadsAndWhatItRefusesTheServerRefusesAlike() {
        int built = 0;
        int refused = 0;
        for (int i = 0; i < JOBS; i++) {
            MailJobBuilder b = randomBuilder(i);
            byte[] body = b.body();
            ParseResult read = new JobParser(b.bodyLimit()).parse(body);
            try {
                MailJob job = b.build();
                built++;
                assertThat(read).as("job %d: %s", i, job.json()).isInstanceOf(Parsed.class);
                SendJob s = ((Parsed) read).job();
                assertThat(s.messageId()).isEqualTo(job.messageId());
                assertThat(s.idempotencyKey()).isEqualTo(job.idempotencyKey());
                assertThat(s.to()).isEqualTo(job.recipients());
                assertThat(s.schemaVersion()).isEqualTo(job.document().get("schema_version"));
                assertThat(s.attachments()).hasSize(((List<?>) job.document().getOrDefault("attachments", List.of())).size());
                assertThat(job.json().getBytes(StandardCharsets.UTF_8)).isEqualTo(body);
            } catch (InvalidJobException e) {
                refused++;
                assertThat(read).as("job %d refused by the client: %s", i, e.getMessage()).isInstanceOf(Rejected.class);
                assertThat(((Rejected) read).reason()).isEqualTo(e.reason());
            }
        }
        System.out.printf("%d jobs: %d built, %d refused%n", JOBS, built, refused);
        assertThat(built).as("jobs built").isGreaterThan(JOBS / 5);
        assertThat(refused).as("jobs refused").isGreaterThan(JOBS / 5);
    }

    private MailJobBuilder randomBuilder(int i) {
        MailJobBuilder b = MailJob.builder();
        int recipients = random.nextInt(15) == 0 ? 0 : 1 + random.nextInt(3);
        for (int r = 0; r < recipients; r++) {
            b.to(mostly(MAILBOXES, "alice@example.com"));
        }
        if (random.nextInt(20) > 0) {
            b.from(mostly(MAILBOXES, "noreply@example.com"));
        }
        if (random.nextInt(5) == 0) {
            b.cc(mostly(MAILBOXES, "carol@example.com")).bcc(mostly(MAILBOXES, "audit@example.com"));
        }
        if (random.nextInt(8) == 0) {
            b.replyTo(mostly(MAILBOXES, "help@example.com"));
        }
        if (random.nextBoolean()) {
            b.subject(mostly(TEXTS, "Hi"));
            if (random.nextInt(20) > 0) {
                b.text(pick(TEXTS));
            }
            if (random.nextBoolean()) {
                b.html(pick(TEXTS));
            }
        } else {
            b.template(mostly(TEMPLATES, "welcome"));
            if (random.nextBoolean()) {
                b.variable("name", pick(TEXTS)).variable("n", random.nextInt())
                        .variable("nested", Map.of("list", List.of(1, "two", 3.5), "when", Instant.ofEpochSecond(i)));
            }
        }
        if (random.nextInt(15) == 0) {
            b.text(pick(TEXTS)); // a body beside a template, or none at all
        }
        if (random.nextInt(3) == 0) {
            b.messageId(mostly(IDS, "m-" + i));
        }
        if (random.nextInt(3) == 0) {
            b.idempotencyKey(mostly(IDS, "key-" + i));
        }
        if (random.nextInt(4) == 0) {
            b.header(mostly(HEADER_NAMES, "X-Order"), mostly(TEXTS, "v"));
        }
        if (random.nextInt(4) == 0) {
            b.metadata(mostly(IDS, "order"), mostly(TEXTS, "v"));
        }
        if (random.nextInt(4) == 0) {
            b.category(mostly(IDS, "receipt")).tenant(mostly(IDS, "acme")).campaignId(mostly(IDS, "c"));
        }
        if (random.nextInt(5) == 0) {
            b.expiresAt(random.nextInt(10) == 0 ? Instant.MAX : Instant.ofEpochSecond(random.nextInt(2_000_000_000), random.nextInt(1_000_000_000)));
        }
        if (random.nextInt(5) == 0) {
            // past times only beside the out-of-range one: a future one beyond the horizon is the server's decision
            // at arrival, which the parser alone does not make (MailJobContractTest has the builder's own check)
            b.sendAt(random.nextInt(10) == 0 ? Instant.MAX : Instant.ofEpochSecond(random.nextInt(1_700_000_000)));
        }
        if (random.nextInt(5) == 0) {
            b.unsubscribe(mostly(TEXTS, "https://shop.example/u?t=" + i), random.nextBoolean() ? null : mostly(TEXTS, "u@shop.example"));
        }
        if (random.nextInt(5) == 0) {
            b.priority(MailJob.Priority.values()[random.nextInt(3)]);
        }
        int attachments = random.nextInt(6) == 0 ? 1 + random.nextInt(2) : 0;
        for (int a = 0; a < attachments; a++) {
            if (random.nextBoolean()) {
                b.attachment(mostly(FILENAMES, "invoice.pdf"), mostly(CONTENT_TYPES, "application/pdf"),
                        random.nextInt(20) == 0 ? null : new byte[random.nextInt(40)]);
            } else {
                b.attachmentByReference(mostly(FILENAMES, "ticket.ics"), mostly(CONTENT_TYPES, "text/calendar"),
                        mostly(URLS, "https://files.shop.example/" + i), mostly(CHECKSUMS, CHECKSUMS[0]),
                        random.nextInt(20) == 0 ? -1 : random.nextInt(1_000));
            }
        }
        if (random.nextInt(20) == 0) {
            b.bodyLimit(200 + random.nextInt(400));
        }
        return b;
    }

    /** A good value most of the time, any value of the pool otherwise. */
    private String mostly(String[] pool, String good) {
        return random.nextInt(10) == 0 ? pick(pool) : good;
    }

    private String pick(String[] pool) {
        return pool[random.nextInt(pool.length)];
    }
}
