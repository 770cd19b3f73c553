package dev.mailroom.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * A headless Chromium on a Mailroom's web console, whichever server runs it (Debian's {@code chromium} and
 * {@code chromium-driver}, or {@code -Dmailroom.it.chromium} / {@code -Dmailroom.it.chromedriver}); a profile of its
 * own, removed by {@link #close()}.
 */
public final class ConsoleBrowser implements AutoCloseable {

    public static final Path CHROMEDRIVER =
            Path.of(System.getProperty("mailroom.it.chromedriver", "/usr/bin/chromedriver"));
    public static final String CHROMIUM = System.getProperty("mailroom.it.chromium", "/usr/bin/chromium");
    public static final Duration WAIT = Duration.ofSeconds(30);

    private final String baseUrl;
    private final Path profileDir;
    private final WebDriver driver;

    private ConsoleBrowser(String baseUrl, Path profileDir, WebDriver driver) {
        this.baseUrl = baseUrl;
        this.profileDir = profileDir;
        this.driver = driver;
    }

    /** Starts the browser for the Mailroom at {@code baseUrl} ({@code http://127.0.0.1:<port>/mailroom}). */
    public static ConsoleBrowser start(String baseUrl) {
        Path profileDir;
        try {
            profileDir = Files.createTempDirectory("mailroom-chromium-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-proxy-server", "--window-size=1400,1000", "--user-data-dir=" + profileDir,
                // some port offsets land on a port Chromium refuses (ERR_UNSAFE_PORT: offset 2000 gives 10080)
                "--explicitly-allowed-ports=" + URI.create(baseUrl).getPort());
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        WebDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().scriptTimeout(WAIT);
        return new ConsoleBrowser(baseUrl, profileDir, driver);
    }

    public WebDriver driver() {
        return driver;
    }

    /**
     * Opens the console unauthenticated: it must send the browser to the login page; signs in there and waits for the
     * console to name the user.
     */
    public void signIn(String user, String password) {
        driver.get(baseUrl + "/console/");
        wait(WAIT).until(ExpectedConditions.urlContains("/console/login.html"));
        wait(WAIT).until(ExpectedConditions.visibilityOfElementLocated(testId("login-username"))).sendKeys(user);
        driver.findElement(testId("login-password")).sendKeys(password);
        wait(WAIT).until(ExpectedConditions.elementToBeClickable(testId("login-submit"))).click();
        wait(WAIT).until(ExpectedConditions.urlContains("/console/index.html"));
        wait(WAIT).until(ExpectedConditions.textToBePresentInElementLocated(testId("whoami"), user));
    }

    public static By testId(String id) {
        return By.cssSelector("[data-testid='" + id + "']");
    }

    public WebDriverWait wait(Duration timeout) {
        WebDriverWait wait = new WebDriverWait(driver, timeout, Duration.ofMillis(200));
        wait.ignoring(org.openqa.selenium.StaleElementReferenceException.class);
        wait.ignoring(org.openqa.selenium.NoSuchElementException.class);
        return wait;
    }

    @Override
    public void close() {
        try {
            driver.quit();
        } catch (RuntimeException ignored) {
            // already gone
        }
        try (Stream<Path> files = Files.walk(profileDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temp dir
        }
    }
}
