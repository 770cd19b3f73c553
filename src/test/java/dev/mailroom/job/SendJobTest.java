package dev.mailroom.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link SendJob#withoutRecipients}: positions numbered as {@link JobRecipient#of} numbers them. */
class SendJobTest {

    private static SendJob job(List<String> to, List<String> cc, List<String> bcc) {
        return new SendJob(1, "m-1", null, "t", null, null, "from@x.io", to, cc, bcc, null, "s", "t", null, null,
                null, null, null, null, null, null, null);
    }

    @Test
    void leavesOutThePositionsAcrossToCcAndBcc() {
        SendJob job = job(List.of("A <a@x.io>", "b@x.io"), List.of("c@x.io"), List.of("d@x.io", "e@x.io"));
        assertThat(JobRecipient.of(1, job)).extracting(JobRecipient::getAddress)
                .containsExactly("a@x.io", "b@x.io", "c@x.io", "d@x.io", "e@x.io");

        SendJob kept = job.withoutRecipients(Set.of(0, 2, 4));
        assertThat(kept.to()).containsExactly("b@x.io");
        assertThat(kept.cc()).isEmpty();
        assertThat(kept.bcc()).containsExactly("d@x.io");
        assertThat(kept.messageId()).isEqualTo("m-1");
        assertThat(kept.idempotencyKey()).isEqualTo("m-1");
        assertThat(kept.subject()).isEqualTo("s");
    }

    @Test
    void nothingWithheldIsTheSameJob() {
        SendJob job = job(List.of("a@x.io"), List.of(), List.of());
        assertThat(job.withoutRecipients(Set.of())).isSameAs(job);
    }
}
