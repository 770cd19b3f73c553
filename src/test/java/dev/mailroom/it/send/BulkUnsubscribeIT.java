package dev.mailroom.it.send;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mailroom.it.support.ItEnvironment;
import dev.mailroom.it.support.Jobs;
import dev.mailroom.testsupport.SmtpTestServer;
import jakarta.mail.Session;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeUtility;
import java.io.ByteArrayInputStream;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The bulk queue on the real server: a job with {@code unsubscribe} reaches the relay with RFC 8058's two headers;
 * one without is dead-lettered as poison ({@code missing_unsubscribe}) and never reaches it.
 */
@Tag("smtp")
class BulkUnsubscribeIT {

    private static final String BULK = "mail.send.bulk";

    @Test
    void aBulkJobArrivesWithOneClickUnsubscribeAndOneWithoutIsDeadLetteredWithItsReason() throws Exception {
        ItEnvironment env = ItEnvironment.get();
        SmtpTestServer smtp = env.smtp();
        String prefix = Jobs.runPrefix("unsub-" + env.profile());
        String with = prefix + "with";
        String without = prefix + "without";
        String url = "https://shop.example/unsubscribe?list=news&token=" + prefix;

        env.jms().sendText(BULK, """
                {"schema_version": 1, "message_id": "%s", "from": "News <news@example.com>", "to": ["alice@example.com"],
                 "subject": "Spring sale", "text": "Everything must go.",
                 "unsubscribe": {"url": "%s", "mailto": "unsubscribe@example.com"}}""".formatted(with, url));
        env.jms().sendText(BULK, """
                {"schema_version": 1, "message_id": "%s", "from": "News <news@example.com>", "to": ["alice@example.com"],
                 "subject": "Spring sale", "text": "Everything must go."}""".formatted(without));

        SmtpTestServer.ReceivedMail got = Awaitility.await("the job with an unsubscribe at the relay")
                .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> smtp.received().stream()
                        .filter(m -> Jobs.smtpMessageId(with).equals(m.messageId())).findFirst().orElse(null),
                        java.util.Objects::nonNull);
        MimeMessage parsed = new MimeMessage(Session.getInstance(new Properties()), new ByteArrayInputStream(got.raw()));
        String[] lists = parsed.getHeader("List-Unsubscribe");
        assertThat(lists).hasSize(1);
        List<String> uris = Stream.of(MimeUtility.unfold(lists[0]).split(",")).map(String::strip).toList();
        assertThat(uris).containsExactly("<" + url + ">", "<mailto:unsubscribe@example.com>");
        assertThat(parsed.getHeader("List-Unsubscribe-Post")).containsExactly("List-Unsubscribe=One-Click");

        JsonNode row = Jobs.awaitDeadLetter(env.api(), BULK, without, Duration.ofSeconds(60));
        assertThat(row.path("reason").asText()).isEqualTo("poison");
        assertThat(row.path("error_type").asText()).isEqualTo("missing_unsubscribe");
        assertThat(row.path("error").asText()).contains("/unsubscribe: is required on the bulk queue " + BULK);
        assertThat(env.api().getJson("/api/v1/jobs/" + without).path("attempts")).isEmpty();
        assertThat(smtp.countsByMessageId()).doesNotContainKey(Jobs.smtpMessageId(without));
    }
}
