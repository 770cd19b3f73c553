package dev.mailroom.platform.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.platform.servers.ServerPlatforms.Kind;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The server is recognised at run time from the system properties it sets for itself. */
class ServerPlatformsTest {

    @ParameterizedTest
    @CsvSource({
            "wlp.install.dir, /opt/ol/wlp, OPEN_LIBERTY",
            "jboss.home.dir,  /opt/wildfly, WILDFLY"})
    void eachServerIsKnownByItsOwnProperty(String property, String value, Kind expected) {
        Map<String, String> props = Map.of(property, value);
        assertThat(Kind.of(props::get)).isEqualTo(expected);
    }

    @Test
    void anotherServerIsRefusedNamingWhatWasLookedFor() {
        assertThatThrownBy(() -> Kind.of(name -> null)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("jboss.home.dir").hasMessageContaining("wlp.install.dir");
    }
}
