package dev.mailroom.platform;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mailroom.testsupport.Shell;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code server-config/wildfly/db-timeouts.conf}, which configure.sh appends to WildFly's {@code standalone.conf}: the
 * PostgreSQL driver's socket, connect and login timeouts added to {@code MAILROOM_DB_URL} at boot, as {@code /bin/sh}
 * (what standalone.sh runs) sources it.
 */
class DbTimeoutsConfTest {

    private static final Path CONF = Path.of("server-config/wildfly/db-timeouts.conf");

    @ParameterizedTest(name = "{0} (socket timeout {1}) -> {2}")
    @CsvSource(delimiter = '|', nullValues = "-", value = {
            // the defaults added to a URL without parameters
            "jdbc:postgresql://db:5432/mailroom | - | 0 | jdbc:postgresql://db:5432/mailroom?socketTimeout=15&connectTimeout=5&loginTimeout=10",
            // a parameter the URL sets itself wins; the others are appended after its own
            "jdbc:postgresql://db/mailroom?ssl=true&socketTimeout=40 | - | 0 | jdbc:postgresql://db/mailroom?ssl=true&socketTimeout=40&connectTimeout=5&loginTimeout=10",
            "jdbc:postgresql://db/mailroom?loginTimeout=3 | - | 0 | jdbc:postgresql://db/mailroom?loginTimeout=3&socketTimeout=15&connectTimeout=5",
            // a name that merely ends like one of them is not it
            "jdbc:postgresql://db/mailroom?xsocketTimeout=1 | - | 0 | jdbc:postgresql://db/mailroom?xsocketTimeout=1&socketTimeout=15&connectTimeout=5&loginTimeout=10",
            // the environment sets the bound
            "jdbc:postgresql://db/mailroom | 7 | 0 | jdbc:postgresql://db/mailroom?socketTimeout=7&connectTimeout=5&loginTimeout=10",
            // H2 (the single node's default) is left alone
            "jdbc:h2:file:/data/mailroom;MODE=PostgreSQL | - | 0 | jdbc:h2:file:/data/mailroom;MODE=PostgreSQL",
            // not a whole number of seconds: the server does not start
            "jdbc:postgresql://db/mailroom | 15s | 2 | -",
            "jdbc:postgresql://db/mailroom | -1 | 2 | -",
    })
    void theDriversTimeoutsAreAddedToAPostgresqlUrl(String url, String socketTimeout, int exit, String expected)
            throws Exception {
        Map<String, String> env = new HashMap<>(Map.of("MAILROOM_DB_URL", url));
        if (socketTimeout != null) {
            env.put("MAILROOM_DB_SOCKET_TIMEOUT", socketTimeout);
        }
        Shell.Result r = Shell.run(List.of("/bin/sh", "-c", ". \"$1\"; printf %s \"$MAILROOM_DB_URL\"", "sh",
                CONF.toAbsolutePath().toString()), env);
        assertThat(r.exit()).as(r.err()).isEqualTo(exit);
        if (exit == 0) {
            assertThat(r.out()).isEqualTo(expected);
        } else {
            assertThat(r.err()).contains("whole seconds").contains(socketTimeout);
        }
    }
}
