package dev.mailroom.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.job.JobParser;
import dev.mailroom.job.ParseResult;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The chaos suite's fuzzer: seeded, every field and every kind of mutation, every case refused by the parser. */
class JobFuzzerTest {

    @Test
    void aThousandCasesCoverEveryFieldAndKindAndAreAllRejected() {
        List<JobFuzzer.Case> cases = new JobFuzzer(7).cases("fuzz-", 1000);
        assertThat(cases).hasSize(1000);
        JobParser parser = new JobParser();
        assertThat(cases).allMatch(c -> parser.parse(c.body()) instanceof ParseResult.Rejected);
        Set<String> fields = new HashSet<>();
        Set<JobFuzzer.Kind> kinds = new HashSet<>();
        cases.forEach(c -> {
            fields.add(c.field());
            kinds.add(c.kind());
        });
        assertThat(fields).contains("message_id", "from", "to", "cc", "bcc", "reply_to", "subject", "text", "html",
                "headers", "metadata", "template_id", "variables", "expires_at", "priority", "schema_version",
                "unsubscribe", "attachments", "(document)");
        assertThat(kinds).containsExactlyInAnyOrder(JobFuzzer.Kind.values());
        assertThat(cases.stream().filter(c -> c.kind() == JobFuzzer.Kind.header_injection).map(JobFuzzer.Case::field)
                .distinct().count()).as("fields with a header-injection attempt").isGreaterThanOrEqualTo(10);
    }

    @Test
    void theSameSeedMakesTheSameCases() {
        List<JobFuzzer.Case> a = new JobFuzzer(42).cases("f-", 50);
        List<JobFuzzer.Case> b = new JobFuzzer(42).cases("f-", 50);
        for (int i = 0; i < a.size(); i++) {
            assertThat(b.get(i).body()).isEqualTo(a.get(i).body());
        }
    }
}
