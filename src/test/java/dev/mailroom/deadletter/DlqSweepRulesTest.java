package dev.mailroom.deadletter;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** What the sweeper does with a bare DLQ message, from the dead letter with the message's identity. */
class DlqSweepRulesTest {

    private static final String BARE = "ID:bare-copy";

    /**
     * status: the recorded dead letter's status (none: no row with the identity, e.g. purged);
     * pointsHere: whether the row's DLQ copy is this very message (recorded before copies carried envelopes).
     */
    @ParameterizedTest(name = "{0}, row points here: {1} -> {2}")
    @CsvSource({
            "none,       false, record",
            "open,       false, copy",
            "open,       true,  copy",
            "replaying,  false, copy",
            "replaying,  true,  copy",
            "replayed,   false, record",
            "replayed,   true,  copy",
            "discarded,  false, record",
            "discarded,  true,  copy",
            "expired,    false, record",
            "expired,    true,  copy"})
    void aBareMessageIsANewDeadLetterOrACopyOfOneRecorded(String status, boolean pointsHere, String expected) {
        DlqSweepRules.Recorded recorded = "none".equals(status) ? null
                : new DlqSweepRules.Recorded(7, DeadLetter.Status.valueOf(status), pointsHere ? BARE : "ID:other");
        DlqSweepRules.Action action = DlqSweepRules.decide(BARE, recorded);
        assertThat(action).isInstanceOf("record".equals(expected) ? DlqSweepRules.Action.RecordDeadLetter.class
                : DlqSweepRules.Action.EnvelopeCopy.class);
        if (action instanceof DlqSweepRules.Action.EnvelopeCopy c) {
            assertThat(c.deadLetterId()).as("a copy of the recorded dead letter").isEqualTo(7);
        }
    }

    @Test
    void aSecondBareCopyOfAnOpenDeadLetterIsNotRecordedAgain() {
        // two broker-routed copies of one message: the first is recorded (and its envelope copy is what the
        // row points at), the second is only a copy: one row, one announcement
        DlqSweepRules.Action first = DlqSweepRules.decide("ID:first", null);
        DlqSweepRules.Action second = DlqSweepRules.decide("ID:second",
                new DlqSweepRules.Recorded(7, DeadLetter.Status.open, "ID:enveloped-first"));
        assertThat(first).isInstanceOf(DlqSweepRules.Action.RecordDeadLetter.class);
        assertThat(second).isInstanceOf(DlqSweepRules.Action.EnvelopeCopy.class);
    }

    @Test
    void everyStatusIsCoveredByTheTable() throws Exception {
        CsvSource table = getClass().getDeclaredMethod("aBareMessageIsANewDeadLetterOrACopyOfOneRecorded",
                String.class, boolean.class, String.class).getAnnotation(CsvSource.class);
        Set<String> covered = Arrays.stream(table.value()).map(row -> row.split(",")[0].trim())
                .collect(Collectors.toSet());
        for (DeadLetter.Status s : EnumSet.allOf(DeadLetter.Status.class)) {
            assertThat(covered).as("a row for status " + s).contains(s.name());
        }
        assertThat(covered).contains("none");
    }
}
