// Every UI type through its outcomes, in both enc, as an app's SDK drives
// it: pass, fail (three wrong answers), cancel, the timeouts by the token's
// clock, new codes, and the trust prompt; the enquiry after each
// (docs/app-channel.md, "What each UI type sends and receives").
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ENCS } from "../exchange.mjs";
import { decodeAcsHTML, formData, HTML_ACTION, parseForm } from "../html.mjs";
import {
  assertErro, assertFinal, assertOutcome, assertScreen, assertWire, eciOf, expectAcsErro, postCReq, Sandbox, startChallenge, WRONG_CODE,
} from "./sandbox.mjs";

/** The key of the choice labelled `label` on a select screen. */
function keyOf(screen, label) {
  const entry = screen.challengeSelectInfo.find((o) => Object.values(o)[0] === label);
  assert.ok(entry, `no choice ${label} in ${JSON.stringify(screen.challengeSelectInfo)}`);
  return Object.keys(entry)[0];
}

/** A key that is none of `labels`. */
function keyNotOf(screen, labels) {
  const entry = screen.challengeSelectInfo.find((o) => !labels.includes(Object.values(o)[0]));
  return Object.keys(entry)[0];
}

/** The HTML screen's form, checked: it posts to HTTPS://EMV3DS/challenge. */
function htmlForm(screen) {
  const form = parseForm(decodeAcsHTML(screen.acsHTML));
  assert.equal(form.action.toUpperCase(), HTML_ACTION.toUpperCase(), "the HTML form's action");
  return form;
}

/**
 * acsRenderingType as the docs give it: acsInterface 01 (native) with
 * acsUiTemplate the UI type, or 02 (HTML) with 05.
 */
function assertRendering(rendering, uiType) {
  assert.equal(rendering?.acsInterface, uiType === "05" ? "02" : "01", `acsRenderingType.acsInterface: ${JSON.stringify(rendering)}`);
  assert.equal(rendering.acsUiTemplate, uiType, `acsRenderingType.acsUiTemplate: ${JSON.stringify(rendering)}`);
}

const otp = (code) => (ch) => ch.enter(code);

/**
 * The UI types, with the card that shows each, its authenticationType, how
 * an SDK answers right and wrong on its screen (an out-of-band screen has
 * no wrong answer: the banking app approves or declines), and what it sends
 * after the ACS timed the challenge out.
 */
const STYLES = [
  { name: "otp (01 text)", card: "4000000000009102", uiType: "01", authType: "02", pass: otp("1234"), wrong: otp(WRONG_CODE), resends: true },
  { name: "password (01 text)", card: "4000000000009359", uiType: "01", authType: "01", pass: otp("Tr0ub4dor!"), wrong: otp("wrong-password") },
  {
    name: "select (02)", card: "4000000000009326", uiType: "02", authType: "01",
    pass: (ch, s) => ch.select([keyOf(s, "Chiang Mai")]),
    wrong: (ch, s) => ch.select([keyNotOf(s, ["Chiang Mai"])]),
  },
  {
    name: "multiselect (03)", card: "4000000000009334", uiType: "03", authType: "01",
    pass: (ch, s) => ch.select([keyOf(s, "Sandbox Coffee"), keyOf(s, "Demo Books")]),
    wrong: (ch, s) => ch.select([keyOf(s, "Sandbox Coffee")]),
  },
  {
    name: "oob (04 out of band)", card: "4000000000009300", uiType: "04", authType: "03",
    pass: async (ch, s, sb) => {
      await sb.bankingApp(s.oobAppURL, "approve");
      return ch.oobContinue(ch.enc === "A128GCM" ? "Y" : true);
    },
    late: (ch) => ch.oobContinue(true),
  },
  {
    name: "otp as HTML (05)", card: "4000000000009607", uiType: "05", authType: "02", html: true,
    pass: (ch, s) => ch.html(formData(htmlForm(s), { entry: "1234", action: "otp" })),
    wrong: (ch, s) => ch.html(formData(htmlForm(s), { entry: WRONG_CODE, action: "otp" })),
  },
];

const MINUTES_PAST_FIRST_CREQ = "11m";
const MINUTES_PAST_CHALLENGE = "16m";

for (const enc of ENCS) {
  // Android sends counter IVs, iOS random ones: both are taken.
  const ivs = enc === "A128CBC-HS256" ? "counter" : "random";

  describe(`${enc}`, { concurrency: 16 }, () => {
    for (const style of STYLES) {
      const open = async (sb) => {
        const c = await startChallenge(sb, style.card, { enc, ivs });
        assertRendering(c.lookup.acsRenderingType, style.uiType);
        const screen = await c.ch.start();
        await assertScreen(screen, { uiType: style.uiType });
        if (style.html) htmlForm(screen);
        return { ...c, screen };
      };

      test(`${style.name}: pass`, async () => {
        const sb = new Sandbox(`pass-${style.name}`);
        const { ch, id, screen } = await open(sb);
        assertFinal(await style.pass(ch, screen, sb), "Y");
        assertWire(ch);
        await assertOutcome(sb, id, { status: "Y", cancel: undefined, authType: style.authType, interactions: 1 });
      });

      if (style.wrong) test(`${style.name}: three wrong answers fail`, async () => {
        const sb = new Sandbox(`fail-${style.name}`);
        const opened = await open(sb);
        const { ch, id } = opened;
        let screen = opened.screen;
        for (const left of [2, 1]) {
          screen = await style.wrong(ch, screen, sb);
          await assertScreen(screen, { uiType: style.uiType, attemptsLeft: left });
        }
        assertFinal(await style.wrong(ch, screen, sb), "N");
        assertWire(ch);
        await assertOutcome(sb, id, { status: "N", reason: "19", cancel: undefined, authType: style.authType, interactions: 3 });
      });

      test(`${style.name}: the cardholder cancels`, async () => {
        const sb = new Sandbox(`cancel-${style.name}`);
        const { ch, id } = await open(sb);
        assertFinal(await ch.cancel("01"), "N");
        await assertOutcome(sb, id, { status: "N", reason: "01", cancel: "01", authType: style.authType, interactions: 0 });
        const { reply } = await postCReq(ch, ch.creq({ challengeNoEntry: "Y" }));
        assertErro(reply, "305", ch);
      });

      test(`${style.name}: opened, then idle past the challenge timeout`, async () => {
        const sb = new Sandbox(`idle-${style.name}`);
        const { ch, id, screen } = await open(sb);
        await sb.advanceClock(MINUTES_PAST_CHALLENGE);
        await assertOutcome(sb, id, { status: "N", reason: "14", cancel: "04", authType: style.authType, interactions: 0 });
        await expectAcsErro((style.late ?? style.wrong)(ch, screen, sb), "402");
      });

      test(`${style.name}: no first CReq within the first-CReq timeout`, async () => {
        const sb = new Sandbox(`nocreq-${style.name}`);
        const { ch, id } = await startChallenge(sb, style.card, { enc, ivs });
        await sb.advanceClock(MINUTES_PAST_FIRST_CREQ);
        await assertOutcome(sb, id, { status: "N", reason: "14", cancel: "05", authType: style.authType, authTypeOptional: true, interactions: 0 });
        await expectAcsErro(ch.start(), "402");
      });
    }

    test("otp: three new codes, the label gone after the last, then the code passes", async () => {
      const sb = new Sandbox("resend-otp");
      const { ch, id } = await startChallenge(sb, "4000000000009102", { enc, ivs });
      let screen = await ch.start();
      for (let i = 0; i < 3; i++) {
        assert.ok(screen.resendInformationLabel, `resendInformationLabel while new codes are left (${3 - i})`);
        screen = await ch.resend();
        await assertScreen(screen, { uiType: "01" });
        assert.notEqual(screen.challengeInfoTextIndicator, "Y", "a new code is no wrong answer");
      }
      assert.equal(screen.resendInformationLabel, undefined, "no label once no new code is left");
      const { reply } = await postCReq(ch, ch.creq({ resendChallenge: "Y" }));
      assertErro(reply, "305", ch);
      assertFinal(await ch.enter("1234"), "Y");
      assertWire(ch);
      await assertOutcome(sb, id, { status: "Y", cancel: undefined, authType: "02", interactions: 1 });
      const codes = (await sb.transaction(id)).events.filter((e) => e.type === "codeSent");
      assert.equal(codes.length, 4, "a codeSent event when the screen first shows and on each resend");
    });

    test("otp as HTML: a new code from the form's resend, then the code passes", async () => {
      const sb = new Sandbox("resend-html");
      const { ch, id } = await startChallenge(sb, "4000000000009607", { enc, ivs });
      const first = await ch.start();
      const form = htmlForm(first);
      assert.ok(form.buttons.some((b) => b.value === "resend" || b.action === "resend"), "the form offers a new code");
      const again = await ch.html(formData(form, { action: "resend" }));
      await assertScreen(again, { uiType: "05" });
      assertFinal(await ch.html(formData(htmlForm(again), { entry: "1234", action: "otp" })), "Y");
      await assertOutcome(sb, id, { status: "Y", cancel: undefined, authType: "02", interactions: 1 });
    });

    test("otp: a code the scenario names as failing (0000) ends the challenge at once", async () => {
      const sb = new Sandbox("otp-0000");
      const { ch, id } = await startChallenge(sb, "4000000000009102", { enc, ivs });
      await ch.start();
      assertFinal(await ch.enter("0000"), "N");
      await assertOutcome(sb, id, { status: "N", reason: "01", cancel: undefined, authType: "02", interactions: 1 });
    });

    test("oob: Continue before the banking app answered shows the screen again", async () => {
      const sb = new Sandbox("oob-early");
      const { ch, id } = await startChallenge(sb, "4000000000009300", { enc, ivs });
      const first = await ch.start();
      assert.ok(first.oobContinueLabel && first.oobAppURL && first.oobAppLabel, "oobContinueLabel, oobAppURL, oobAppLabel");
      assert.match(first.oobAppURL, new RegExp(`/acs/app/${id}$`, "i"), "oobAppURL is the banking app's page of the transaction");
      const again = await ch.oobContinue(true);
      await assertScreen(again, { uiType: "04" });
      assert.notEqual(again.challengeInfoTextIndicator, "Y", "uses no attempt");
      const noEntry = await ch.noEntry();
      await assertScreen(noEntry, { uiType: "04" });
      assert.notEqual(noEntry.challengeInfoTextIndicator, "Y", "challengeNoEntry on 04 is a Continue: no attempt");
      await sb.bankingApp(first.oobAppURL, "approve");
      assertFinal(await ch.oobContinue(true), "Y");
      await assertOutcome(sb, id, { status: "Y", cancel: undefined, authType: "03", interactions: 1 });
    });

    test("oob: the banking app declines", async () => {
      const sb = new Sandbox("oob-decline");
      const { ch, id } = await startChallenge(sb, "4000000000009300", { enc, ivs });
      const first = await ch.start();
      await sb.bankingApp(first.oobAppURL, "decline");
      assertFinal(await ch.oobContinue(true), "N");
      await assertOutcome(sb, id, { status: "N", reason: "01", cancel: undefined, authType: "03", interactions: 1 });
    });

    for (const code of ["06", "07", "08"]) {
      test(`the SDK's own cancel ${code}: N with that code`, async () => {
        const sb = new Sandbox(`sdkcancel-${code}`);
        const { ch, id } = await startChallenge(sb, "4000000000009102", { enc, ivs });
        await ch.start();
        assertFinal(await ch.cancel(code), "N");
        await assertOutcome(sb, id, { status: "N", cancel: code, authType: "02", interactions: 0 });
      });
    }

    for (const [entry, want] of [["Y", "Y"], ["N", "N"]]) {
      test(`trust prompt: whitelistingDataEntry ${entry} on a passed challenge: whiteListStatus ${want}`, async () => {
        const sb = new Sandbox(`trust-${entry}`);
        const { ch, id } = await startChallenge(sb, "4000000000009342", { enc, ivs });
        const first = await ch.start();
        assert.ok(first.whitelistingInfoText, "whitelistingInfoText on a trustPrompt card");
        assertFinal(await ch.send({ challengeDataEntry: "1234", whitelistingDataEntry: entry }), "Y");
        await assertOutcome(sb, id, { status: "Y", cancel: undefined, authType: "02", interactions: 1, whiteList: want });
      });
    }

    test("trust prompt: a failed challenge trusts no merchant", async () => {
      const sb = new Sandbox("trust-fail");
      const { ch, id } = await startChallenge(sb, "4000000000009342", { enc, ivs });
      await ch.start();
      for (let i = 0; i < 2; i++) await ch.send({ challengeDataEntry: WRONG_CODE, whitelistingDataEntry: "Y" });
      assertFinal(await ch.send({ challengeDataEntry: WRONG_CODE, whitelistingDataEntry: "Y" }), "N");
      const e = await assertOutcome(sb, id, { status: "N", reason: "19", cancel: undefined, authType: "02", interactions: 3 });
      assert.notEqual(e.whiteListStatus, "Y");
    });
  });
}

describe("every scheme", { concurrency: 8 }, () => {
  const cards = {
    VISA: "4000000000009102", MASTERCARD: "5200000000009107", AMEX: "340000000009109",
    DISCOVER: "6011000000009104", JCB: "3528000000009107", UPI: "6200000000009105",
  };
  for (const [scheme, card] of Object.entries(cards)) {
    test(`${scheme}: signed under its directory server's root; pass, ECI ${eciOf(scheme, "Y")}`, async () => {
      const sb = new Sandbox(`scheme-${scheme}`);
      const { ch, id, lookup } = await startChallenge(sb, card);
      assert.equal(lookup.cardScheme, scheme);
      await ch.start();
      assertFinal(await ch.enter("1234"), "Y");
      await assertOutcome(sb, id, { status: "Y", cancel: undefined, authType: "02", interactions: 1 });
    });
  }
  test(`MASTERCARD: fail, ECI ${eciOf("MASTERCARD", "N")}`, async () => {
    const sb = new Sandbox("scheme-mc-fail");
    const { ch, id } = await startChallenge(sb, cards.MASTERCARD, { enc: "A128GCM" });
    await ch.start();
    for (let i = 0; i < 3; i++) await ch.enter(WRONG_CODE);
    await assertOutcome(sb, id, { status: "N", reason: "19", cancel: undefined, authType: "02", interactions: 3 });
  });
});
