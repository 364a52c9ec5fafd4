package dev.idempotent.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idempotent.Idempotency;
import dev.idempotent.http.IdempotencyRule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.WindowType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The demo's order form in headless Chromium against the web app on a free loopback port: whatever
 * the user does with the browser, one form places one order. Where a test must prove the server
 * alone, it first removes the page's own protection (the script that locks the button), and checks
 * that the duplicate really reached the server.
 */
class OrderFormBrowserTest {
  private static final Duration WAIT = Duration.ofSeconds(15);
  private static HeadlessChromium chromium;

  private OrderWebApp app;
  private ChromeDriver browser;
  private String base;

  @BeforeAll
  static void startBrowser() throws Exception {
    if (HeadlessChromium.installed()) {
      chromium = HeadlessChromium.start();
    }
  }

  @AfterAll
  static void stopBrowser() throws Exception {
    if (chromium != null) {
      chromium.close();
    }
  }

  @BeforeEach
  void startApp() throws Exception {
    HeadlessChromium.assumeInstalled();
    Idempotency.reset();
    app = new OrderWebApp("127.0.0.1", 0).start();
    base = "http://127.0.0.1:" + app.port();
    browser = chromium.driver();
    browser.manage().deleteAllCookies();
  }

  @AfterEach
  void stopApp() throws Exception {
    if (app == null) {
      return;
    }
    List<String> tabs = new ArrayList<>(browser.getWindowHandles());
    for (String extra : tabs.subList(1, tabs.size())) {
      browser.switchTo().window(extra).close();
    }
    browser.switchTo().window(tabs.get(0));
    app.close();
    Idempotency.reset();
  }

  @Test
  void aDoubleClickWithThePageScriptRemovedPlacesOneOrder() throws Exception {
    openForm();
    fill("lamp", "2", "ada@example.com");
    chromium.screenshot("order-form");
    removePageProtection();
    WebElement button = browser.findElement(By.id("place-order"));
    // Two native clicks 40 ms apart (a quick human double-click is 100-200 ms): both submits leave
    // the browser.
    new Actions(browser)
        .moveToElement(button)
        .click()
        .pause(Duration.ofMillis(40))
        .click()
        .perform();
    String orderPage = awaitOrderPage();

    assertThat(app.submitsReceived()).as("both clicks reached the server").isEqualTo(2);
    assertThat(app.orders().count()).isEqualTo(1);
    assertThat(orderPage).endsWith("/orders/ord-1");
    assertThat(browser.findElement(By.tagName("h1")).getText()).isEqualTo("Order ord-1");
    assertThat(browser.findElement(By.tagName("dl")).getText())
        .contains("lamp", "2", "ada@example.com");
    chromium.screenshot("order-placed");
  }

  @Test
  void twoScriptSubmitsOfOneFormPlaceOneOrder() throws Exception {
    openForm();
    fill("book", "1", "ada@example.com");
    removePageProtection();
    browser.executeScript(
        "var f = document.getElementById('order'); f.submit(); setTimeout(function () { f.submit();"
            + " }, 40);");
    awaitOrderPage();

    assertThat(app.submitsReceived()).as("both submits reached the server").isEqualTo(2);
    assertThat(app.orders().count()).isEqualTo(1);
  }

  @Test
  void withThePageScriptADoubleClickSendsOneSubmit() throws Exception {
    openForm();
    fill("book", "1", "ada@example.com");
    WebElement button = browser.findElement(By.id("place-order"));
    new Actions(browser)
        .moveToElement(button)
        .click()
        .pause(Duration.ofMillis(40))
        .click()
        .perform();
    awaitOrderPage();

    assertThat(app.submitsReceived()).as("the locked button ignored the second click").isEqualTo(1);
    assertThat(app.orders().count()).isEqualTo(1);
  }

  @Test
  void reloadingTheOrderPagePlacesNoNewOrder() {
    openForm();
    fill("desk", "1", "ada@example.com");
    browser.findElement(By.id("place-order")).click();
    String orderPage = awaitOrderPage();

    browser.navigate().refresh();
    browser.navigate().refresh();

    assertThat(browser.getCurrentUrl()).isEqualTo(orderPage);
    assertThat(browser.findElement(By.tagName("h1")).getText()).isEqualTo("Order ord-1");
    assertThat(app.submitsReceived()).isEqualTo(1);
    assertThat(app.orders().count()).isEqualTo(1);
  }

  @Test
  void backAndSubmitAgainShowsTheFirstOrder() {
    openForm();
    fill("chair", "4", "ada@example.com");
    String token = token();
    browser.findElement(By.id("place-order")).click();
    String orderPage = awaitOrderPage();

    browser.navigate().back();
    new WebDriverWait(browser, WAIT)
        .until(ExpectedConditions.elementToBeClickable(By.id("place-order")));
    assertThat(token()).as("the form came back with its token").isEqualTo(token);
    browser.findElement(By.id("place-order")).click();

    assertThat(awaitOrderPage()).isEqualTo(orderPage);
    assertThat(app.submitsReceived()).as("the second submit reached the server").isEqualTo(2);
    assertThat(app.orders().count()).isEqualTo(1);
  }

  @Test
  void twoTabsSharingOneFormsTokenPlaceOneOrder() {
    openForm();
    fill("book", "3", "ada@example.com");
    String token = token();
    String first = browser.getWindowHandle();
    WebDriver second = browser.switchTo().newWindow(WindowType.TAB);
    second.get(base + "/");
    fill("book", "3", "ada@example.com");
    // A duplicated tab: the same form, the same token.
    browser.executeScript(
        "document.getElementsByName(arguments[0])[0].value = arguments[1];",
        IdempotencyRule.DEFAULT_SUBMIT_TOKEN_FIELD,
        token);

    browser.findElement(By.id("place-order")).click();
    String secondPage = awaitOrderPage();
    browser.switchTo().window(first);
    browser.findElement(By.id("place-order")).click();
    String firstPage = awaitOrderPage();

    assertThat(firstPage).isEqualTo(secondPage);
    assertThat(app.submitsReceived()).isEqualTo(2);
    assertThat(app.orders().count()).isEqualTo(1);
  }

  @Test
  void aSubmitThatFailsValidationKeepsItsTokenAndTheCorrectedOnePlacesTheOrder() throws Exception {
    openForm();
    fill("lamp", "0", "ada@example.com");
    String token = token();
    browser.findElement(By.id("place-order")).click();
    new WebDriverWait(browser, WAIT)
        .until(ExpectedConditions.presenceOfElementLocated(By.className("error")));

    assertThat(browser.findElement(By.className("error")).getText()).contains("Quantity must be");
    assertThat(token()).as("the form came back with the same token").isEqualTo(token);
    assertThat(app.orders().count()).isZero();
    chromium.screenshot("order-form-invalid");

    WebElement quantity = browser.findElement(By.id("quantity"));
    quantity.clear();
    quantity.sendKeys("5");
    browser.findElement(By.id("place-order")).click();
    awaitOrderPage();

    assertThat(browser.findElement(By.tagName("dl")).getText()).contains("lamp", "5");
    assertThat(app.submitsReceived()).isEqualTo(2);
    assertThat(app.orders().count()).isEqualTo(1);
  }

  private void openForm() {
    browser.get(base + "/");
    new WebDriverWait(browser, WAIT)
        .until(ExpectedConditions.elementToBeClickable(By.id("place-order")));
  }

  private void fill(String item, String quantity, String email) {
    new Select(browser.findElement(By.id("item"))).selectByValue(item);
    WebElement q = browser.findElement(By.id("quantity"));
    q.clear();
    q.sendKeys(quantity);
    WebElement e = browser.findElement(By.id("email"));
    e.clear();
    e.sendKeys(email);
  }

  private String token() {
    return browser
        .findElement(By.name(IdempotencyRule.DEFAULT_SUBMIT_TOKEN_FIELD))
        .getDomProperty("value");
  }

  /** The page's own protection off: no script locks the button, so every click submits. */
  private void removePageProtection() {
    browser.executeScript(
        "var f = document.getElementById('order'); f.removeAttribute('onsubmit'); f.onsubmit ="
            + " null;");
  }

  private String awaitOrderPage() {
    new WebDriverWait(browser, WAIT).until(ExpectedConditions.urlMatches("/orders/ord-[0-9]+$"));
    new WebDriverWait(browser, WAIT)
        .until(ExpectedConditions.presenceOfElementLocated(By.tagName("dl")));
    return browser.getCurrentUrl();
  }
}
