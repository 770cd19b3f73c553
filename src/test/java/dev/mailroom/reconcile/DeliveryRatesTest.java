package dev.mailroom.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Bounce and complaint rates against their thresholds: which breach, and which have just crossed. */
class DeliveryRatesTest {

    static final DeliveryRates.Thresholds DEFAULTS = new DeliveryRates.Thresholds(0.05, 0.001, 100);

    @ParameterizedTest(name = "sent {0}, bounced {1}, complained {2}, before [{3}] -> [{4}]")
    @CsvSource(nullValues = "-", value = {
            // sent, bounced, complained, breaching before,  expected breaches (kind:crossed)
            "1000,   50,      1,          -,                  -",
            "1000,   51,      1,          -,                  bounce:true",
            "1000,   51,      1,          bounce,             bounce:false",
            "1000,   0,       2,          -,                  complaint:true",
            "1000,   60,      2,          complaint,          bounce:true complaint:false",
            "99,     99,      99,         -,                  -",
            "100,    6,       0,          -,                  bounce:true",
            "0,      0,       0,          -,                  -",
    })
    void judged(long sent, long bounced, long complained, String before, String expected) {
        Set<String> breachingBefore = before == null ? Set.of() : Set.of(before + "|mail.send|acme");
        List<DeliveryRates.Breach> breaches = DeliveryRates.judge(
                List.of(new DeliveryRates.Counts("mail.send", "acme", sent, bounced, complained)), DEFAULTS, breachingBefore);
        List<String> got = breaches.stream().map(b -> b.kind() + ":" + b.crossed()).toList();
        assertThat(got).isEqualTo(expected == null ? List.of() : List.of(expected.split(" ")));
        breaches.forEach(b -> assertThat(b.rate()).isGreaterThan(b.threshold()));
    }
}
