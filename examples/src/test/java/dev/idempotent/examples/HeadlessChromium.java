package dev.idempotent.examples;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The system's Chromium ({@code chromium} and {@code chromium-driver} Debian packages), headless,
 * driven by Selenium. Nothing is downloaded: the driver executable is given to the service, so
 * Selenium Manager is never asked for one, and the browser binary is given to the options. Without
 * the packages the tests are skipped, except under {@code CI=true}, where that is a failure.
 */
final class HeadlessChromium implements AutoCloseable {
  static final Path BROWSER = Path.of(System.getProperty("chromium.binary", "/usr/bin/chromium"));
  static final Path DRIVER =
      Path.of(System.getProperty("chromium.driver", "/usr/bin/chromedriver"));
  static final Path SCREENSHOTS = Path.of("target", "screenshots").toAbsolutePath();
  static final Path LOG = Path.of("target", "chromedriver.log").toAbsolutePath();

  private final ChromeDriverService service;
  private final Path profile;
  private final ChromeDriver driver;

  private HeadlessChromium(ChromeDriverService service, Path profile, ChromeDriver driver) {
    this.service = service;
    this.profile = profile;
    this.driver = driver;
  }

  /** Whether the browser and its driver are installed. */
  static boolean installed() {
    return Files.isExecutable(BROWSER) && Files.isExecutable(DRIVER);
  }

  /**
   * Skips the calling test (fails it under {@code CI=true}) when the browser or its driver is
   * missing.
   */
  static void assumeInstalled() {
    if (installed()) {
      return;
    }
    String missing =
        "headless Chromium needs "
            + BROWSER
            + " and "
            + DRIVER
            + ": install the Debian packages chromium and chromium-driver (apt-get install chromium"
            + " chromium-driver)";
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      fail("CI=true and " + missing);
    }
    System.out.println("SKIPPED browser test: " + missing);
    Assumptions.abort(missing);
  }

  /** A new browser with a fresh profile in a temporary directory. */
  static HeadlessChromium start() throws IOException {
    assumeInstalled();
    Path profile = Files.createTempDirectory("chromium-profile-");
    Files.createDirectories(LOG.getParent());
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(DRIVER.toFile())
            .usingAnyFreePort()
            .withLogFile(LOG.toFile())
            .withSilent(true)
            .build();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(BROWSER.toFile());
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=900,900",
        "--user-data-dir=" + profile);
    ChromeDriver driver;
    try {
      driver = new ChromeDriver(service, options);
    } catch (RuntimeException e) {
      service.stop();
      deleteTree(profile);
      throw e;
    }
    driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(20));
    return new HeadlessChromium(service, profile, driver);
  }

  ChromeDriver driver() {
    return driver;
  }

  /** Saves what the browser shows to {@code target/screenshots/<name>.png} and prints the path. */
  Path screenshot(String name) throws IOException {
    File shot = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
    Files.createDirectories(SCREENSHOTS);
    Path to = SCREENSHOTS.resolve(name + ".png");
    Files.copy(shot.toPath(), to, StandardCopyOption.REPLACE_EXISTING);
    System.out.println("screenshot: " + to);
    return to;
  }

  @Override
  public void close() throws IOException {
    try {
      driver.quit();
    } finally {
      service.stop();
      deleteTree(profile);
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
