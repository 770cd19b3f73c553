package dev.mailroom.provider.smtp;

import dev.mailroom.job.JobParser;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every header the SMTP provider refuses to take from a job is refused already by the parser, so such
 * a job is dead-lettered at receipt as poison instead of failing in the provider and being retried.
 */
class ReservedHeadersAreRefusedAtReceiptTest {

    @Test
    void theParserOwnsEveryHeaderTheSmtpProviderReserves() {
        assertThat(SmtpProvider.RESERVED_HEADERS)
                .isNotEmpty()
                .allSatisfy(name -> assertThat(JobParser.isOwnedHeader(name)).as(name).isTrue());
    }
}
