package dev.mailroom.attachment;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SourceRuleTest {

    private static final List<String> PREFIXES = List.of("https://files.shop.example/mail/", "https://cdn.shop.example",
            "http://127.0.0.1:8089/files/", "http://10.0.0.5/exports/", "http://localhost:7000/", "https://intra.shop.example/");

    private static InetAddress ip(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    static Stream<Arguments> urls() {
        List<InetAddress> publicIp = List.of(ip("93.184.216.34"));
        return Stream.of(
                // url, resolved addresses, allowed?, what a refusal says
                Arguments.of("https://files.shop.example/mail/a.pdf", publicIp, true, null),
                Arguments.of("HTTPS://FILES.SHOP.EXAMPLE/mail/a.pdf", publicIp, true, null),
                Arguments.of("https://files.shop.example/other/a.pdf", publicIp, false, "under none"),
                Arguments.of("https://cdn.shop.example/a.pdf", publicIp, true, null),
                Arguments.of("https://cdn.shop.example", publicIp, true, null),
                Arguments.of("https://cdn.shop.example.evil.test/a.pdf", publicIp, false, "under none"),
                Arguments.of("https://cdn.shop.example:8443/a.pdf", publicIp, false, "under none"),
                Arguments.of("https://cdn.shop.example@evil.test/a.pdf", publicIp, false, "user information"),
                Arguments.of("ftp://files.shop.example/mail/a.pdf", publicIp, false, "not an http or https URL"),
                Arguments.of("http://127.0.0.1:9990/management", List.of(ip("127.0.0.1")), false, "under none"),
                // an operator who names an internal address (or localhost) means it
                Arguments.of("http://127.0.0.1:8089/files/a.pdf", List.of(ip("127.0.0.1")), true, null),
                Arguments.of("http://10.0.0.5/exports/a.pdf", List.of(ip("10.0.0.5")), true, null),
                Arguments.of("http://localhost:7000/a.pdf", List.of(ip("127.0.0.1"), ip("::1")), true, null),
                // a listed name that resolves inside the network is refused (DNS pointing in)
                Arguments.of("https://intra.shop.example/a.pdf", List.of(ip("10.1.2.3")), false, "internal address 10.1.2.3"),
                Arguments.of("https://files.shop.example/mail/a.pdf", List.of(ip("169.254.169.254")), false, "internal"),
                Arguments.of("https://files.shop.example/mail/a.pdf", List.of(publicIp.get(0), ip("192.168.1.1")), false, "internal"),
                Arguments.of("https://files.shop.example/mail/a.pdf", List.of(ip("::1")), false, "internal"),
                Arguments.of("https://files.shop.example/mail/a.pdf", List.of(ip("fd00::1")), false, "internal"),
                Arguments.of("https://files.shop.example/mail/a.pdf", List.of(ip("::ffff:10.0.0.1")), false, "internal"),
                Arguments.of("https://files.shop.example/mail/a.pdf", List.of(ip("100.64.0.1")), false, "internal"),
                Arguments.of("https://files.shop.example/mail/a.pdf", List.of(ip("0.0.0.0")), false, "internal"),
                Arguments.of("https://files.shop.example/mail/a.pdf", List.of(), false, "no address"),
                Arguments.of("https://files.shop.example/mail/a b.pdf", publicIp, false, "not a URL"),
                // dot segments climb out of the prefix on the server, whatever the text says
                Arguments.of("http://127.0.0.1:8089/files/../management", List.of(ip("127.0.0.1")), false, "under none"),
                Arguments.of("http://127.0.0.1:8089/files/%2E%2E/management", List.of(ip("127.0.0.1")), false, "under none"),
                Arguments.of("http://127.0.0.1:8089/files/a/./b.pdf", List.of(ip("127.0.0.1")), false, "under none"),
                Arguments.of("http://127.0.0.1:8089/files/a/..", List.of(ip("127.0.0.1")), false, "under none"),
                Arguments.of("http://127.0.0.1:8089/files/a..b.pdf?v=..", List.of(ip("127.0.0.1")), true, null));
    }

    @ParameterizedTest(name = "{0} -> {1}: {2}")
    @MethodSource("urls")
    void onlyListedSourcesOutsideTheNetworkOrNamedByTheOperatorAreFetched(String url, List<InetAddress> addresses,
                                                                         boolean allowed, String why) {
        SourceRule.Decision d = SourceRule.decide(url, PREFIXES, addresses);
        if (allowed) {
            assertThat(d).isInstanceOf(SourceRule.Allowed.class);
        } else {
            assertThat(d).isInstanceOfSatisfying(SourceRule.Refused.class, r -> assertThat(r.why()).contains(why));
        }
    }
}
