package dev.mailroom.it.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The production WAR ({@code mailroom.war}, what {@code mvn -Prun package} and the Dockerfile deploy) holds no
 * testing resource: no movable clock, no endpoint that moves it. Only the testing WAR the ITs deploy does. Reads
 * the archives the build made; boots no server (tagged into an execution that boots one anyway).
 */
@Tag("default-config")
class ProductionWarIT {

    private static final String TESTING = "WEB-INF/classes/dev/mailroom/ops/testing/";

    @Test
    void theProductionWarHasNoTestingClock() throws IOException {
        Path war = Path.of(System.getProperty("mailroom.it.production-war", "target/mailroom.war"));
        assertThat(war).isRegularFile();
        List<String> entries = entries(war);
        assertThat(entries).as("a real WAR").contains("WEB-INF/classes/dev/mailroom/platform/ClockProducer.class",
                "console/index.html");
        assertThat(entries).noneMatch(e -> e.startsWith(TESTING))
                .noneMatch(e -> e.contains("TestingClock") || e.contains("MovableClock"));

        Path testing = war.resolveSibling("mailroom-testing.war");
        assertThat(entries(testing)).as("the testing WAR the ITs deploy has it")
                .contains(TESTING + "TestingClockResource.class", TESTING + "MovableClock.class");
    }

    private static List<String> entries(Path war) throws IOException {
        assertThat(Files.isRegularFile(war)).as(war.toString()).isTrue();
        try (ZipFile zip = new ZipFile(war.toFile())) {
            return zip.stream().map(ZipEntry::getName).toList();
        }
    }
}
