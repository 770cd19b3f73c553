package dev.mailroom.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * No Docker engine runs here, so {@code docker/Dockerfile} is kept honest statically, after the build made its inputs:
 * every file it copies exists where the build puts it, the script it runs is the one the build runs, and its base
 * image is the WildFly version the build provisions. Boots no server (tagged into an execution that boots one anyway).
 */
@Tag("default-config")
class DockerfileIT {

    private static final Path DOCKERFILE = Path.of("docker/Dockerfile");

    @Test
    void everyFileTheImageCopiesIsMadeByTheBuild() throws IOException {
        List<String> sources = new ArrayList<>();
        Matcher copy = Pattern.compile("(?m)^COPY\\s+(\\S+)\\s+\\S+\\s*$").matcher(Files.readString(DOCKERFILE));
        while (copy.find()) {
            sources.add(copy.group(1));
        }
        assertThat(sources).as("COPY lines").contains("target/mailroom.war", "server-config/wildfly");
        for (String source : sources) {
            assertThat(Path.of(source)).as("COPY source " + source).exists();
        }
    }

    @Test
    void theImageRunsTheBuildsConfigureScriptOnTheSameWildFly() throws IOException {
        String docker = Files.readString(DOCKERFILE);
        Matcher run = Pattern.compile("bash /opt/mailroom/(server-config/wildfly/\\S+\\.sh)").matcher(docker);
        assertThat(run.find()).as("the RUN line calls a script of server-config").isTrue();
        assertThat(Path.of(run.group(1))).isRegularFile();
        assertThat(Files.readString(Path.of("pom.xml"))).as("the build uses the same script")
                .contains(run.group(1).substring(run.group(1).lastIndexOf('/') + 1));

        Matcher from = Pattern.compile("(?m)^FROM \\S+/wildfly:(\\S+?)-jdk\\d+").matcher(docker);
        assertThat(from.find()).as("FROM a WildFly image").isTrue();
        Matcher pomVersion = Pattern.compile("<wildfly.version>(.+?)</wildfly.version>")
                .matcher(Files.readString(Path.of("pom.xml")));
        assertThat(pomVersion.find()).isTrue();
        assertThat(from.group(1)).as("the image's WildFly is the one the tests run on").isEqualTo(pomVersion.group(1));
    }
}
