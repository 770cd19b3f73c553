package dev.mailroom.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A temporary failure on a real server: the retry is a copy the broker holds until it is due, then the job is sent. */
public final class RetryScenario {

    private static final Pattern DUE = Pattern.compile("due at (\\S+) as JMS message");
    /** The broker's timer and the recorded timestamps tick apart by a few milliseconds, not by the retry's delay. */
    private static final Duration CLOCK_SLACK = Duration.ofMillis(100);

    private RetryScenario() {
    }

    /**
     * The relay answers the job's first call {@code code text}: the attempt is classed {@code failureClass}, a retry
     * copy is scheduled on the broker, and the second attempt starts no earlier than that copy was due, and is
     * accepted; the relay holds the mail once. Returns the job as the API shows it.
     */
    public static JsonNode retriedOnTheBrokersScheduleThenSent(Mailroom m, String queue, int code, String text,
                                                               String failureClass) {
        String id = Jobs.runPrefix(failureClass.replace('_', '-')) + code;
        m.smtp().enqueueReply(code, text);
        m.jms().sendText(queue, Jobs.job(id));

        JsonNode job = m.api().awaitJson("/api/v1/jobs/" + id,
                j -> "sent_to_provider".equals(j.path("state").asText()), Duration.ofSeconds(60));
        assertThat(job.path("attempts")).hasSize(2);
        JsonNode first = job.path("attempts").get(0);
        assertThat(first.path("failure_class").asText()).isEqualTo(failureClass);
        assertThat(first.path("code").asText()).isEqualTo(Integer.toString(code));
        assertThat(first.path("enhanced_code").asText()).isEqualTo(text.substring(0, text.indexOf(' ')));

        JsonNode scheduled = null;
        for (JsonNode e : job.path("timeline")) {
            if ("retry_scheduled".equals(e.path("type").asText())) {
                scheduled = e;
            }
        }
        assertThat(scheduled).as("a retry_scheduled event on the timeline: %s", job.path("timeline")).isNotNull();
        Matcher due = DUE.matcher(scheduled.path("detail").asText());
        assertThat(due.find()).as(scheduled.path("detail").asText()).isTrue();
        JsonNode second = job.path("attempts").get(1);
        assertThat(Instant.parse(second.path("started_at").asText()))
                .as("the second attempt started when the copy was due, %s", due.group(1))
                .isAfterOrEqualTo(Instant.parse(due.group(1)).minus(CLOCK_SLACK));
        assertThat(m.smtp().countsByMessageId().get(Jobs.smtpMessageId(id))).isEqualTo(1);
        return job;
    }
}
