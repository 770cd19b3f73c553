package dev.mailroom.job;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class IncomingTest {

    private static Incoming withTraceparent(String traceparent) {
        return new Incoming("mail.send", "ID:1", false, 1, new byte[0], true, traceparent, null, null, null, null);
    }

    @ParameterizedTest(name = "[{index}] {0} -> {1}")
    @CsvSource(nullValues = "null", value = {
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01, 4bf92f3577b34da6a3ce929d0e0e4736",
            "' 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00 ', 4bf92f3577b34da6a3ce929d0e0e4736",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01, null",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01, null",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01, null",
            "not a traceparent, null",
            "null, null"})
    void traceIdIsTakenFromAValidW3cTraceparentOnly(String traceparent, String traceId) {
        assertThat(withTraceparent(traceparent).traceId()).isEqualTo(traceId);
    }

    @org.junit.jupiter.api.Test
    void aCopyPutBackWithoutARecordDescendsFromEveryDeliveryWithAnId() {
        Incoming copy = new Incoming("mail.send", "ID:c1", false, 1, new byte[0], true, null, null, null, null, null,
                null, java.util.List.of("ID:m0"));
        assertThat(copy.descentOfACopy()).containsExactly("ID:m0", "ID:c1");
        // an AMQP sender may set no message id: such a delivery owns no job by it, so its copy carries nothing of it
        Incoming noId = new Incoming("mail.send", null, false, 1, new byte[0], true, null, null, null, null, null);
        assertThat(noId.descentOfACopy()).isEmpty();
    }
}
