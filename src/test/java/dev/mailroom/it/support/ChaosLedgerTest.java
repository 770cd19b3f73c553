package dev.mailroom.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * When the {@code unknown} jobs an operator answered are settled, so that the count after a scenario may read them: a
 * job sent again is {@code received}, then {@code sending} while its copy goes to the relay, and only a finished state
 * ends it. Counted in between, a copy already at the relay reads as a job in no finished state.
 */
class ChaosLedgerTest {

    @ParameterizedTest(name = "{0}: {1} -> still settling {2}")
    @CsvSource(delimiter = '|', nullValues = "null", value = {
            "marked sent                                 | sent_to_provider  | false",
            "sent again, its copy not yet taken          | received          | true",
            "sent again, its copy at the relay           | sending           | true",
            "sent again, its copy sent                   | sent_to_provider  | false",
            "sent again, its copy refused for good       | bounced_permanent | false",
            "the answer refused (the job stays unknown)  | unknown           | false",
            "no record at all                            | null              | true",
    })
    void anAnsweredJobIsSettledOnceItIsInAFinishedState(String answer, String state, boolean stillSettling) {
        Map<String, String> states = new HashMap<>();
        states.put("job-1", state);
        states.put("job-2", "sent_to_provider");

        Map<String, String> left = ChaosLedger.stillSettling(states, List.of("job-1", "job-2"));

        if (stillSettling) {
            assertThat(left).as(answer).containsOnlyKeys("job-1").containsEntry("job-1", state);
        } else {
            assertThat(left).as(answer).isEmpty();
        }
    }
}
