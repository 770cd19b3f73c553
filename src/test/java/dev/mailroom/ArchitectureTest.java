package dev.mailroom;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package layout is the architecture (see {@code dev.mailroom} package docs): a ground
 * ({@code platform}), pure decisions ({@code recoverability}), capabilities, and operator adapters on
 * top ({@code ops.*}, {@code alert}). These rules keep it so.
 */
class ArchitectureTest {

    private static JavaClasses main;

    @BeforeAll
    static void importMain() {
        main = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.mailroom");
        assertThat(main.size()).as("classes imported").isGreaterThan(100);
    }

    @Test
    void no_cycles_between_top_level_packages() {
        slices().matching("dev.mailroom.(*)..").should().beFreeOfCycles().check(main);
    }

    @Test
    void no_cycles_between_sub_packages() {
        slices().matching("dev.mailroom.(**)").should().beFreeOfCycles().check(main);
    }

    @Test
    void the_ground_imports_nothing_of_ours() {
        noClasses().that().resideInAPackage("dev.mailroom.platform..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "dev.mailroom.job..", "dev.mailroom.send..", "dev.mailroom.provider..",
                        "dev.mailroom.recoverability..", "dev.mailroom.deadletter..", "dev.mailroom.redrive..",
                        "dev.mailroom.alert..", "dev.mailroom.ops..", "dev.mailroom.reconcile..",
                        "dev.mailroom.suppression..", "dev.mailroom.erasure..")
                .check(main);
    }

    @Test
    void pure_decisions_know_only_the_ground_and_provider_answers() {
        classes().that().resideInAPackage("dev.mailroom.recoverability..")
                .should().onlyDependOnClassesThat().resideOutsideOfPackages(
                        "dev.mailroom.job..", "dev.mailroom.send..", "dev.mailroom.deadletter..",
                        "dev.mailroom.redrive..", "dev.mailroom.alert..", "dev.mailroom.ops..",
                        "dev.mailroom.reconcile..", "dev.mailroom.suppression..", "dev.mailroom.provider.smtp..",
                        "dev.mailroom.provider.http..",
                        "dev.mailroom.provider.sandbox..")
                .check(main);
    }

    @Test
    void capabilities_never_use_the_adapters() {
        noClasses().that().resideInAnyPackage("dev.mailroom.platform..", "dev.mailroom.recoverability..",
                        "dev.mailroom.provider..", "dev.mailroom.job..", "dev.mailroom.send..",
                        "dev.mailroom.deadletter..", "dev.mailroom.redrive..", "dev.mailroom.reconcile..",
                        "dev.mailroom.suppression..", "dev.mailroom.erasure..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.mailroom.ops..", "dev.mailroom.alert..")
                .check(main);
    }

    @Test
    void adapters_never_use_each_other() {
        for (String adapter : List.of("api", "jmx", "security")) {
            noClasses().that().resideInAPackage("dev.mailroom.ops." + adapter + "..")
                    .should().dependOnClassesThat().resideInAnyPackage(
                            List.of("api", "jmx", "security").stream().filter(a -> !a.equals(adapter))
                                    .map(a -> "dev.mailroom.ops." + a + "..").toArray(String[]::new))
                    .check(main);
        }
    }

    @Test
    void core_code_throws_no_http_exceptions() {
        noClasses().that().resideOutsideOfPackages("dev.mailroom.ops..")
                .should().dependOnClassesThat().resideInAnyPackage("jakarta.ws.rs..")
                .because("a status code is the REST adapter's business; core code throws domain exceptions")
                .check(main);
    }

    /** Where server-specific code may live: one package per server, behind platform.ServerPlatform. */
    static final List<String> SERVER_PACKAGES = List.of("dev.mailroom.platform.wildfly", "dev.mailroom.platform.liberty");

    @Test
    void server_types_are_used_only_in_their_platform_package() {
        noClasses().that().resideOutsideOfPackages(SERVER_PACKAGES.stream().map(p -> p + "..").toArray(String[]::new))
                .should().dependOnClassesThat().resideInAnyPackage("org.jboss.as..", "org.wildfly..", "com.ibm..",
                        "io.openliberty..", "org.jboss.ejb3..")
                .because("the same WAR runs on WildFly and Open Liberty: what is a server's own sits in its platform package")
                .check(main);
    }

    @Test
    void meters_go_to_the_registry_chosen_for_the_server() {
        com.tngtech.archunit.lang.syntax.ArchRuleDefinition.fields()
                .that().haveRawType(io.micrometer.core.instrument.MeterRegistry.class)
                .and().areAnnotatedWith(jakarta.inject.Inject.class)
                .should().beAnnotatedWith(dev.mailroom.platform.Meters.class)
                .because("Open Liberty offers no MeterRegistry bean: platform.MeterRegistries chooses one per server")
                .check(main);
    }

    /** How a server's management objects and names are written: its MBean domains, management paths, JNDI space. */
    static final Pattern SERVER_NAMES = Pattern.compile("jboss\\.as:|WebSphere:|/subsystem=|java:jboss/|java:/jms/");

    @Test
    void server_management_names_are_written_only_in_their_platform_package() throws IOException {
        assertThat(serverNamesOutsideTheirPackages(Path.of("src/main/java"))).isEmpty();
    }

    @Test
    void the_server_names_check_finds_a_name_written_elsewhere() throws IOException {
        Path root = Files.createTempDirectory("arch");
        Path elsewhere = Files.createDirectories(root.resolve("dev/mailroom/send"));
        Files.writeString(elsewhere.resolve("X.java"), "class X { String n = \"jboss.as:subsystem=ejb3\"; }");
        Path own = Files.createDirectories(root.resolve("dev/mailroom/platform/liberty"));
        Files.writeString(own.resolve("Y.java"), "class Y { String n = \"WebSphere:feature=kernel\"; }");
        assertThat(serverNamesOutsideTheirPackages(root)).containsExactly(elsewhere.resolve("X.java"));
    }

    private static List<Path> serverNamesOutsideTheirPackages(Path sources) throws IOException {
        List<Path> allowed = SERVER_PACKAGES.stream().map(p -> sources.resolve(p.replace('.', '/'))).toList();
        try (Stream<Path> files = Files.walk(sources)) {
            List<Path> out = new ArrayList<>();
            for (Path f : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                if (allowed.stream().noneMatch(f::startsWith) && SERVER_NAMES.matcher(Files.readString(f)).find()) {
                    out.add(f);
                }
            }
            return out;
        }
    }

    @Test
    void every_package_has_a_package_info() throws IOException {
        Path root = Path.of("src/main/java/dev/mailroom");
        try (Stream<Path> dirs = Files.walk(root)) {
            List<Path> missing = dirs.filter(Files::isDirectory)
                    .filter(d -> !d.equals(root))
                    .filter(d -> hasJava(d))
                    .filter(d -> !Files.exists(d.resolve("package-info.java")))
                    .toList();
            assertThat(missing).as("packages without package-info.java").isEmpty();
        }
    }

    /** "May use: platform, job." in a package-info, its parenthesised remarks aside; "nothing of Mailroom's" is none. */
    private static final Pattern MAY_USE = Pattern.compile("May use:\\s*([^.]*)\\.");

    /**
     * Each package doc's "May use:" sentence is a rule: the package (with its sub-packages) depends on no package of
     * Mailroom's but those it names. Every top-level package says it; a sub-package may narrow it.
     */
    @Test
    void every_package_uses_only_what_its_package_info_says_it_may() throws IOException {
        Path root = Path.of("src/main/java/dev/mailroom");
        List<String> checked = new ArrayList<>();
        try (Stream<Path> infos = Files.walk(root)) {
            for (Path info : infos.filter(p -> p.getFileName().toString().equals("package-info.java")).sorted().toList()) {
                Path dir = info.getParent();
                String pkg = "dev.mailroom." + root.relativize(dir).toString().replace('/', '.');
                String doc = Files.readString(info).replaceAll("\\s*\\*\\s*", " ").replaceAll("\\([^)]*\\)", "");
                Matcher m = MAY_USE.matcher(doc);
                if (!m.find()) {
                    assertThat(dir.getParent()).as(pkg + ": a top-level package says what it may use (May use: ...)")
                            .isNotEqualTo(root);
                    continue;
                }
                List<String> allowed = new ArrayList<>(List.of(pkg + ".."));
                if (!m.group(1).trim().startsWith("nothing")) {
                    for (String name : Arrays.stream(m.group(1).split(",")).map(String::trim).toList()) {
                        assertThat(root.resolve(name.replace('.', '/'))).as(pkg + " names a package that exists")
                                .isDirectory();
                        allowed.add("dev.mailroom." + name + "..");
                    }
                }
                classes().that().resideInAPackage(pkg + "..")
                        .should().onlyDependOnClassesThat(DescribedPredicate.describe("outside Mailroom or in " + allowed,
                                (JavaClass c) -> !c.getPackageName().startsWith("dev.mailroom")
                                        || allowed.stream().anyMatch(a -> inPackage(c, a))))
                        .because(pkg + "'s package-info.java says so")
                        .check(main);
                checked.add(pkg);
            }
        }
        assertThat(checked).as("packages whose docs are rules").contains("dev.mailroom.platform", "dev.mailroom.job",
                "dev.mailroom.send", "dev.mailroom.recoverability", "dev.mailroom.platform.settings");
    }

    private static boolean inPackage(JavaClass c, String pattern) {
        String base = pattern.substring(0, pattern.length() - 2);
        return c.getPackageName().equals(base) || c.getPackageName().startsWith(base + ".");
    }

    private static boolean hasJava(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.anyMatch(f -> f.toString().endsWith(".java"));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
