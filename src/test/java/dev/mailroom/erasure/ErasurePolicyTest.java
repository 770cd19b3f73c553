package dev.mailroom.erasure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.job.JobRecipient;
import dev.mailroom.platform.Refused;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ErasurePolicyTest {

    private static final String A = "alice@example.com";

    @ParameterizedTest(name = "{0} {1}: {2}")
    @CsvSource(delimiter = '|', nullValues = "-", value = {
        "job                  | sent_to_provider  | Delete",
        "job                  | delivered         | Delete",
        "job                  | dead_lettered     | Delete",
        "job                  | suppressed        | Delete",
        "job                  | unknown           | Mark",
        "job                  | received          | Mark",
        "job                  | sending           | Mark",
        "job                  | retry_scheduled   | Mark",
        "job                  | scheduled         | Mark",
        "dead_letter          | open              | Discard",
        "dead_letter          | replaying         | Mark",
        "dead_letter          | discarded         | Mark",
        "dead_letter          | expired           | Mark",
        "provider_event       | received          | Mark",
        "provider_event       | applied           | Delete",
        "dead_letter_revision | -                 | Delete",
        "held_send            | -                 | Delete",
        "sandbox_mail         | -                 | Delete",
        "suppression          | -                 | Hash",
        "text                 | -                 | Mark",
    })
    void eachKindOfRowNamingTheAddressHasOneFate(ErasurePolicy.Kind kind, String state, String action) {
        ErasurePolicy.Action a = ErasurePolicy.decide(new ErasurePolicy.Facts(kind, state), A);
        assertThat(a.getClass().getSimpleName()).isEqualTo(action);
        if (a instanceof ErasurePolicy.Action.Discard d) {
            assertThat(d.reason()).isEqualTo("erased");
        }
        if (a instanceof ErasurePolicy.Action.Hash h) {
            assertThat(h.hash()).isEqualTo(JobRecipient.hashed(A)).startsWith("sha256:").doesNotContain("alice");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"alice@example.com", "  Alice@Example.COM ", "Alice <ALICE@example.com>"})
    void anAddressIsNormalisedTrimmedAndLowerCasedWhole(String given) {
        assertThat(ErasurePolicy.normalise(given)).isEqualTo(A);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "  ", "alice", "alice@", "@example.com", "a b@example.com", "a@b@c"})
    void aMalformedAddressIsRefusedWithAReason(String given) {
        assertThatThrownBy(() -> ErasurePolicy.normalise(given)).isInstanceOf(Refused.Invalid.class);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "550 5.1.1 <Alice@Example.com>: no such user | 550 5.1.1 <[erased]>: no such user",
        "to alice@example.com and ALICE@EXAMPLE.COM  | to [erased] and [erased]",
        "bob@example.com                             | bob@example.com",
    })
    void theAddressIsReplacedInAnyCase(String text, String expected) {
        assertThat(ErasurePolicy.replaced(text, A, ErasurePolicy.MARKER)).isEqualTo(expected);
    }
}
