package dev.mailroom.platform;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BrokerDiskRuleTest {

    @ParameterizedTest(name = "{0}: usage {1}, limit {2}")
    @CsvSource(delimiter = '|', textBlock = """
            well below the limit            | 0.40 | 0.90 | UP
            at the limit (Artemis: above)   | 0.90 | 0.90 | UP
            above the limit                 | 0.95 | 0.90 | DOWN: the disk of broker primary's store (journal /srv/artemis/data/journal) is 95% full, above its max-disk-usage 90%: the broker blocks every producer until space is freed
            full                            | 1.00 | 0.90 | DOWN: the disk of broker primary's store (journal /srv/artemis/data/journal) is 100% full, above its max-disk-usage 90%: the broker blocks every producer until space is freed
            usage not read                  | -1   | 0.90 | UP
            no limit configured (-1)        | 0.99 | -0.01 | UP
            """)
    void aFullStoreDiskIsDownAndNamed(String row, double usage, double limit, String verdict) {
        assertThat(BrokerDiskRule.verdict(new BrokerQueues.DiskFigures("primary", usage, limit,
                "/srv/artemis/data/journal"))).as(row).isEqualTo(verdict);
    }
}
