package dev.mailroom.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link ServerCpuBench}'s reading of a server's Prometheus text: only the send queue's jobs that were sent. */
class ServerCpuBenchTest {

    @Test
    void countsTheSendQueuesSentJobsAcrossProvidersAndNothingElse() {
        String text = """
                # HELP mailroom_jobs_total Jobs by outcome
                mailroom_jobs_total{outcome="sent_to_provider",provider="sandbox",queue="mail.send"} 1200.0
                mailroom_jobs_total{outcome="sent_to_provider",provider="smtp",queue="mail.send"} 3.0
                mailroom_jobs_total{outcome="dead_lettered",queue="mail.send"} 7.0
                mailroom_jobs_total{outcome="sent_to_provider",queue="mail.send.bulk"} 50.0
                mailroom_attempts_total{queue="mail.send",status="accepted"} 1203.0
                """;
        assertThat(ServerCpuBench.sentIn(text)).isEqualTo(1203);
        assertThat(ServerCpuBench.sentIn("")).isZero();
    }
}
