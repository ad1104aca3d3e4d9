//! Every branch of the trigger, and the transcript view it reads.

use super::*;

fn view(tokens: u64, tool_calls: u64, last: Option<bool>) -> TranscriptView {
    TranscriptView {
        context_tokens: tokens,
        tool_calls,
        last_turn_called_tools: last,
    }
}

fn mark(tokens: u64, tool_calls: u64) -> Watermark {
    Watermark {
        tokens,
        tool_calls,
        updated_at: "2026-12-01T10:00:00Z".to_owned(),
    }
}

fn check(view: &TranscriptView, last: Option<&Watermark>, expected: Trigger) {
    let got = should_extract_memory(view, last, &SessionMemoryConfig::default());
    assert_eq!(got, expected, "{view:?} after {last:?}");
}

#[test]
fn before_the_first_notes_the_init_threshold_is_required() {
    check(
        &view(9_999, 50, Some(false)),
        None,
        Trigger::BelowInitThreshold {
            tokens: 9_999,
            needed: 10_000,
        },
    );
    check(&view(10_000, 0, Some(false)), None, Trigger::NaturalBreak);
    check(
        &view(10_000, 3, Some(true)),
        None,
        Trigger::ToolCalls { tool_calls: 3 },
    );
    check(
        &view(10_000, 2, Some(true)),
        None,
        Trigger::MidWork {
            tool_calls: 2,
            needed: 3,
        },
    );
    // No assistant turn yet is no natural break.
    check(
        &view(20_000, 0, None),
        None,
        Trigger::MidWork {
            tool_calls: 0,
            needed: 3,
        },
    );
}

#[test]
fn after_an_update_the_growth_threshold_is_required_even_with_many_tool_calls() {
    let last = mark(12_000, 10);
    check(
        &view(16_999, 40, Some(true)),
        Some(&last),
        Trigger::TooLittleGrowth {
            growth: 4_999,
            needed: 5_000,
        },
    );
    check(
        &view(16_999, 10, Some(false)),
        Some(&last),
        Trigger::TooLittleGrowth {
            growth: 4_999,
            needed: 5_000,
        },
    );
    check(
        &view(17_000, 13, Some(true)),
        Some(&last),
        Trigger::ToolCalls { tool_calls: 3 },
    );
    check(
        &view(17_000, 12, Some(true)),
        Some(&last),
        Trigger::MidWork {
            tool_calls: 2,
            needed: 3,
        },
    );
    check(
        &view(17_000, 12, Some(false)),
        Some(&last),
        Trigger::NaturalBreak,
    );
}

#[test]
fn a_compacted_context_counts_whole_as_growth() {
    let last = mark(150_000, 10);
    check(
        &view(4_000, 20, Some(false)),
        Some(&last),
        Trigger::TooLittleGrowth {
            growth: 4_000,
            needed: 5_000,
        },
    );
    check(
        &view(6_000, 10, Some(false)),
        Some(&last),
        Trigger::NaturalBreak,
    );
}

#[test]
fn the_thresholds_are_the_configured_ones() {
    let config = SessionMemoryConfig {
        minimum_message_tokens_to_init: 100,
        minimum_tokens_between_update: 50,
        tool_calls_between_updates: 1,
    };
    assert_eq!(
        should_extract_memory(&view(100, 1, Some(true)), None, &config),
        Trigger::ToolCalls { tool_calls: 1 }
    );
    assert_eq!(
        should_extract_memory(&view(149, 5, Some(true)), Some(&mark(100, 1)), &config),
        Trigger::TooLittleGrowth {
            growth: 49,
            needed: 50
        }
    );
    assert_eq!(SessionMemoryConfig::default().tool_calls_between_updates, 3);
}

fn line(value: &serde_json::Value) -> String {
    value.to_string() + "\n"
}

#[test]
fn the_view_reads_real_usage_of_the_last_response_else_estimates() {
    use serde_json::json;
    let with_usage = [
        json!({"type": "user", "uuid": "u1", "message": {"role": "user", "content": "hi"}}),
        json!({"type": "assistant", "uuid": "a1", "message": {"id": "m1", "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}},
                        {"type": "tool_use", "id": "t2", "name": "Read", "input": {"file_path": "/a"}}],
            "usage": {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 1000}}}),
        json!({"type": "user", "uuid": "u2", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "x"}]}}),
        json!({"type": "assistant", "uuid": "a2", "isSidechain": true, "message": {"id": "m2", "role": "assistant",
            "content": [{"type": "tool_use", "id": "t3", "name": "Bash", "input": {}}],
            "usage": {"input_tokens": 99999, "output_tokens": 1}}}),
        json!({"type": "assistant", "uuid": "a3", "message": {"id": "m3", "role": "assistant",
            "content": [{"type": "text", "text": "done"}],
            "usage": {"input_tokens": 20, "output_tokens": 7, "cache_read_input_tokens": 2000}}}),
    ];
    let text: String = with_usage.iter().map(line).collect();
    let t = memdir_transcript::parse(text.as_bytes());
    assert_eq!(
        TranscriptView::of(&t),
        view(2_027, 2, Some(false)),
        "the sidechain's tokens and tool call do not count"
    );

    let plain = json!([
        {"role": "user", "content": "a".repeat(4_000)},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Grep", "input": {}}]},
    ]);
    let t = memdir_transcript::parse(plain.to_string().as_bytes());
    // 4,000 characters of text and "Grep{}" are 4,006 characters.
    assert_eq!(TranscriptView::of(&t), view(1_001, 1, Some(true)));
    assert_eq!(TranscriptView::of(&Transcript::default()), view(0, 0, None));
}

#[test]
fn estimates_count_characters_not_bytes() {
    assert_eq!(estimate_tokens("abcdefgh"), 2);
    assert_eq!(estimate_tokens("ééé"), 0);
    assert_eq!(estimate_tokens(&"é".repeat(8)), 2);
}
