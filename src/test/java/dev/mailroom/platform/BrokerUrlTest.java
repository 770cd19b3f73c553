package dev.mailroom.platform;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.testsupport.Shell;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code server-config/broker-url.sh}, the one reading of {@code MAILROOM_BROKER_URL} that WildFly's
 * remote-broker.sh and Open Liberty's configure.sh both source: what it accepts, and that what it refuses stops
 * the configuration with a message naming the setting and the part at fault.
 */
class BrokerUrlTest {

    private static final Path PARSER = Path.of("server-config/broker-url.sh");

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "tcp://127.0.0.1:61616 | broker 127.0.0.1 61616",
            "(tcp://primary:61616,tcp://backup.example.com:61617) | broker primary 61616;broker backup.example.com 61617",
            "tcp://a:1,tcp://b:2?ha=true | broker a 1;broker b 2;param ha true",
            // every client parameter WildFly took before the two servers shared this reading
            "(tcp://p:61616,tcp://b:61616)?ha=TRUE&reconnectAttempts=-1&retryInterval=500&retryIntervalMultiplier=1.5"
                    + "&maxRetryInterval=30000&callTimeout=30000&clientFailureCheckPeriod=-1&connectionTTL=60000"
                    + " | broker p 61616;broker b 61616;param ha true;param reconnectAttempts -1;param retryInterval 500;"
                    + "param retryIntervalMultiplier 1.5;param maxRetryInterval 30000;param callTimeout 30000;"
                    + "param clientFailureCheckPeriod -1;param connectionTTL 60000",
            // an empty query or a trailing & is no parameter
            "tcp://a:1? | broker a 1",
            "tcp://a:1?ha=false& | broker a 1;param ha false",
    })
    void aUrlBothServersHonourIsReadIntoBrokersAndParameters(String url, String expected) throws Exception {
        Shell.Result r = parse(url);
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out().strip().split("\n")).containsExactly(expected.split(";"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            // Open Liberty used to drop these silently
            "tcp://a:1?ha=true&consumerWindowSize=0 | parameter 'consumerWindowSize' is not supported",
            "tcp://a:1?sslEnabled=true | parameter 'sslEnabled' is not supported",
            // and to read only ha=true, taking any other value of it for false
            "tcp://a:1?ha=yes | bad value for ha: 'yes'",
            "tcp://a:1?ha | parameter 'ha' has no value",
            "tcp://a:1?callTimeout=30s | bad value for callTimeout: '30s'",
            "tcp://a:1?reconnectAttempts=-1&reconnectAttempts=5 | parameter 'reconnectAttempts' is given twice",
            "tcp://a:1?retryIntervalMultiplier=-2 | bad value for retryIntervalMultiplier: '-2'",
            "tcp://a:1?callTimeout=1;rm | bad value for callTimeout: '1;rm'",
            // the brokers
            "udp://a:1 | 'udp://a:1' is not tcp://host:port",
            "tcp://a | 'tcp://a' is not tcp://host:port",
            "tcp://a:0 | 'tcp://a:0' is not tcp://host:port",
            "tcp://a:65536 | 'tcp://a:65536' is not tcp://host:port",
            "tcp://a:1,,tcp://b:2 | '' is not tcp://host:port",
            "tcp://a b:1 | 'tcp://a b:1' is not tcp://host:port",
            "(tcp://a:1,tcp://b:2 | unbalanced parentheses in '(tcp://a:1,tcp://b:2'",
            "?ha=true | it names no broker",
    })
    void aUrlEitherServerWouldMisreadIsRefusedNamingTheSettingAndThePart(String url, String reason) throws Exception {
        Shell.Result r = parse(url);
        assertThat(r.exit()).as(r.out()).isEqualTo(2);
        assertThat(r.out()).as("nothing half-read is printed").isEmpty();
        assertThat(r.err()).startsWith("MAILROOM_BROKER_URL='" + url + "': ").contains(reason);
    }

    @Test
    void anEmptyUrlNamesNoBroker() throws Exception {
        Shell.Result r = parse("");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("MAILROOM_BROKER_URL", "it names no broker");
    }

    /** WildFly's side: each parameter the parser passes becomes the pooled connection factory's attribute. */
    @Test
    void wildFlysBatchCarriesEveryParameterAsItsAttribute() throws Exception {
        Shell.Result r = remoteBroker(
                "(tcp://p:61616,tcp://b:61617)?ha=true&reconnectAttempts=-1&retryInterval=500&retryIntervalMultiplier=1.5"
                        + "&maxRetryInterval=30000&callTimeout=20000&clientFailureCheckPeriod=10000&connectionTTL=60000");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("mailroom-broker-1:add(host=p, port=61616)",
                "mailroom-broker-2:add(host=b, port=61617)",
                "connectors=[mailroom-broker-1, mailroom-broker-2]",
                "ha=true, reconnect-attempts=-1, retry-interval=500, retry-interval-multiplier=1.5, max-retry-interval=30000,"
                        + " call-timeout=20000, client-failure-check-period=10000, connection-ttl=60000)");
    }

    @Test
    void wildFlyPrintsNoBatchForARefusedUrl() throws Exception {
        Shell.Result r = remoteBroker("tcp://a:1?consumerWindowSize=0");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).contains("MAILROOM_BROKER_URL", "'consumerWindowSize' is not supported");
    }

    /**
     * Either server's configure.sh stops on a refused URL before it touches the server (Open Liberty's used to
     * read only {@code ha=true} and carry on).
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"server-config/liberty/configure.sh", "server-config/wildfly/configure.sh"})
    void configureStopsOnARefusedUrlBeforeTouchingTheServer(String script, @TempDir Path home) throws Exception {
        Shell.Result r = Shell.run(List.of("bash", script, home.toString(), home.resolve("driver.jar").toString()),
                Map.of("MAILROOM_BROKER_URL", "tcp://a:1?ha=true&callTimeout=30s"));
        assertThat(r.exit()).as(r.out()).isEqualTo(2);
        assertThat(r.err()).contains("MAILROOM_BROKER_URL", "bad value for callTimeout: '30s'");
        try (var laidOut = Files.list(home)) {
            assertThat(laidOut).isEmpty();
        }
    }

    private static Shell.Result parse(String url) throws Exception {
        String source = ". \"$0\"; broker_url_parse \"$1\"";
        return Shell.run(List.of("bash", "-c", source, PARSER.toAbsolutePath().toString(), url), Map.of());
    }

    private static Shell.Result remoteBroker(String url) throws Exception {
        return Shell.run(List.of("bash", "server-config/wildfly/remote-broker.sh", url), Map.of());
    }
}
