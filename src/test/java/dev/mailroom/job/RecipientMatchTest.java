package dev.mailroom.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.platform.Refused;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link RecipientMatch}: what each typed search is, and which normalised addresses it finds. */
class RecipientMatchTest {

    private static final List<String> ADDRESSES = List.of("alice@example.com", "policy571-alice@example.net",
            "alina@example.com", "bob@alice.example", "malice@example.org", "al_ce@example.com", "carol@example.net");

    /** typed, the match it is, the addresses of {@link #ADDRESSES} it finds */
    private record Case(String typed, RecipientMatch match, List<String> found) { }

    @Test
    void eachTypedSearchIsOneMatchAndFindsExactlyItsAddresses() {
        List<Case> cases = List.of(
                new Case("alice@example.com", new RecipientMatch.Address("alice@example.com"),
                        List.of("alice@example.com")),
                new Case("  Alice <ALICE@Example.com> ", new RecipientMatch.Address("alice@example.com"),
                        List.of("alice@example.com")),
                new Case("@example.net", new RecipientMatch.Domain("example.net"),
                        List.of("policy571-alice@example.net", "carol@example.net")),
                new Case("ali*", new RecipientMatch.Prefix("ali"), List.of("alice@example.com", "alina@example.com")),
                new Case("*example.net", new RecipientMatch.Suffix("example.net"),
                        List.of("policy571-alice@example.net", "carol@example.net")),
                new Case("alice", new RecipientMatch.Contains("alice"), List.of("alice@example.com",
                        "policy571-alice@example.net", "bob@alice.example", "malice@example.org")),
                new Case("*alice*", new RecipientMatch.Contains("alice"), List.of("alice@example.com",
                        "policy571-alice@example.net", "bob@alice.example", "malice@example.org")),
                new Case("ALICE", new RecipientMatch.Contains("alice"), List.of("alice@example.com",
                        "policy571-alice@example.net", "bob@alice.example", "malice@example.org")),
                new Case("-alice@", new RecipientMatch.Contains("-alice@"), List.of("policy571-alice@example.net")),
                new Case("alice@exa", new RecipientMatch.Address("alice@exa"), List.of()),
                new Case("alice@", new RecipientMatch.Contains("alice@"),
                        List.of("alice@example.com", "policy571-alice@example.net", "malice@example.org")),
                new Case("*alice@example.com*", new RecipientMatch.Contains("alice@example.com"),
                        List.of("alice@example.com")),
                new Case("l_c", new RecipientMatch.Contains("l_c"), List.of("al_ce@example.com")),
                new Case("nobody", new RecipientMatch.Contains("nobody"), List.of()));
        for (Case c : cases) {
            RecipientMatch m = RecipientMatch.parse(c.typed());
            assertThat(m).as(c.typed()).isEqualTo(c.match());
            assertThat(ADDRESSES.stream().filter(m::matches).toList()).as(c.typed()).isEqualTo(c.found());
        }
    }

    @Test
    void blankIsNoRecipientFilter() {
        assertThat(RecipientMatch.parse(null)).isNull();
        assertThat(RecipientMatch.parse("  ")).isNull();
    }

    @Test
    void whatNoIndexCouldNarrowOrNoAddressCouldBeIsRefusedWithTheAcceptedForms() {
        for (String typed : List.of("al", "*al*", "*al", "a*", "*", "**", "@", "@a@b", "a*b@example.com", "ali**",
                "*a*b*")) {
            assertThatThrownBy(() -> RecipientMatch.parse(typed)).as(typed)
                    .isInstanceOfSatisfying(Refused.Invalid.class, e -> {
                        assertThat(e.reason()).isEqualTo("invalid_recipient");
                        assertThat(e.getMessage()).contains("alice or *alice*").endsWith(": " + typed);
                    });
        }
    }
}
