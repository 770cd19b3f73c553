package dev.mailroom.ops.jmx;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.platform.Refused;
import org.junit.jupiter.api.Test;

class JmxErrorsTest {

    @Test
    void aRefusalBecomesAnIllegalArgumentWithTheReasonAndNoCause() {
        RuntimeException e = JmxErrors.forClient("discard", "mail.send",
                new RuntimeException("wrapped", new Refused.Conflict("not_open", "dead letter 7 is discarded")));
        assertThat(e).isExactlyInstanceOf(IllegalArgumentException.class).hasNoCause()
                .hasMessage("refused (conflict not_open): dead letter 7 is discarded");
    }

    @Test
    void aMissingCapabilityKeepsItsMessage() {
        RuntimeException e = JmxErrors.forClient("planRedrive", "mail.send",
                new UnsupportedOperationException("the redrive facade dev.mailroom.redrive.Redrives.plan is not available"));
        assertThat(e).isExactlyInstanceOf(UnsupportedOperationException.class).hasNoCause()
                .hasMessageContaining("Redrives.plan");
    }

    @Test
    void anythingElseNamesTheOperationAndAnIncidentWithoutItsCause() {
        RuntimeException e = JmxErrors.forClient("Depth", "mail.send", new IllegalStateException("broker down"));
        assertThat(e).isExactlyInstanceOf(IllegalStateException.class).hasNoCause()
                .hasMessageContaining("Depth on mail.send failed").hasMessageContaining("broker down")
                .hasMessageContaining("incident");
    }
}
