"""uiautomator dump parsing (real format) and the writer the fake adb uses."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.fake_adb import dump as fake_dump

from android_world.env.adb import uiautomator
from android_world.env.representation_utils import AccessibilityNode, BoundingBox

FIXTURES = Path(__file__).parents[1] / "fixtures" / "adb"


def _read(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def test_every_node_becomes_an_element_in_document_order():
    elements = uiautomator.dump_to_ui_elements(_read("settings_home.xml"))
    assert len(elements) == 14  # every <node>, containers included; <hierarchy> is not one
    assert elements[0].class_name == "android.widget.FrameLayout"
    assert elements[2].text == "Settings"
    assert elements[3].content_description == "Search settings"
    assert [e.text for e in elements[6:8]] == ["Network & internet", "Mobile, Wi‑Fi, hotspot"]


def test_bounds_become_bbox_pixels_and_bbox_stays_empty():
    elements = uiautomator.dump_to_ui_elements(_read("settings_home.xml"))
    search = elements[3]
    assert search.bbox_pixels == BoundingBox(950, 1040, 220, 310)
    assert search.bbox_pixels.center == (995.0, 265.0)
    assert search.bbox is None


def test_flags_resource_ids_and_empty_attributes():
    elements = uiautomator.dump_to_ui_elements(_read("settings_home.xml"))
    root = elements[0]
    assert root.text is None and root.content_description is None and root.resource_name is None
    assert root.package_name == "com.android.settings"
    recycler = elements[4]
    assert recycler.is_scrollable and recycler.is_focusable and not recycler.is_clickable
    assert recycler.resource_name == recycler.resource_id == "com.android.settings:id/recycler_view"
    row = elements[8]
    assert row.is_clickable and row.is_long_clickable
    unicode_title, switch = elements[9], elements[10]
    assert unicode_title.text == 'Réseau 日本語 😀 "quoted" <tag>'
    assert unicode_title.is_enabled is False and unicode_title.is_selected is True
    assert switch.is_checkable and switch.is_checked
    edit = elements[13]
    assert edit.class_name == "android.widget.EditText"
    assert edit.is_editable and edit.is_focused
    assert all(e.is_visible for e in elements)


def test_zero_size_and_off_screen_nodes_are_kept_with_their_bounds():
    elements = uiautomator.dump_to_ui_elements(_read("settings_home.xml"))
    zero, below = elements[11], elements[12]
    assert zero.class_name == "android.view.View"
    assert zero.bbox_pixels == BoundingBox(0, 0, 840, 840) and zero.bbox_pixels.area == 0
    assert below.text == "Below the fold"
    assert below.bbox_pixels == BoundingBox(0, 1080, 2500, 2700)


def test_tree_structure_is_kept_in_the_forest():
    nodes = uiautomator.parse_dump(_read("settings_home.xml"))
    assert [n.unique_id for n in nodes] == list(range(len(nodes)))
    assert nodes[0].child_ids == [1, 4]
    assert nodes[1].child_ids == [2, 3]
    assert nodes[4].child_ids == [5, 8, 11, 12, 13]
    assert nodes[5].child_ids == [6, 7]
    assert all(not n.child_ids for n in nodes if n.text)


def test_several_windows_in_one_hierarchy():
    elements = uiautomator.dump_to_ui_elements(_read("multi_window.xml"))
    assert [e.package_name for e in elements] == [
        "com.google.android.apps.nexuslauncher",
        "com.google.android.apps.nexuslauncher",
        "com.android.systemui",
        "com.android.systemui",
    ]
    assert elements[1].bbox_pixels == BoundingBox(100, 300, 200, 400)


def test_several_hierarchies_with_noise_and_trailer():
    nodes = uiautomator.parse_dump(_read("two_hierarchies.txt"))
    assert len(nodes) == 14 + 2
    assert nodes[-1].content_description == "Delete"
    assert nodes[14].child_ids == [15]  # ids index the combined list


def test_control_characters_are_dropped_not_fatal():
    output = (
        '<hierarchy rotation="0"><node index="0" text="a\x01b&#2;c&#x1f;&#10;d" class="x" '
        'bounds="[0,0][10,10]" /></hierarchy>'
    )
    (element,) = uiautomator.dump_to_ui_elements(output)
    assert element.text == "abc\nd"


def test_empty_hierarchy_gives_no_elements():
    assert uiautomator.dump_to_ui_elements('<hierarchy rotation="0"/>') == []
    assert uiautomator.dump_to_ui_elements('<hierarchy rotation="0"></hierarchy>') == []


@pytest.mark.parametrize(
    "output",
    [
        "ERROR: null root node returned by UiTestAutomationBridge.\n",
        "ERROR: could not get idle state.\n",
    ],
)
def test_transient_failures_are_recognised(output):
    with pytest.raises(uiautomator.UiDumpError) as info:
        uiautomator.parse_dump(output)
    assert info.value.transient
    assert "uiautomator dump failed" in str(info.value)


def test_other_failures_are_not_transient():
    with pytest.raises(uiautomator.UiDumpError) as info:
        uiautomator.parse_dump("Killed\n")
    assert not info.value.transient
    with pytest.raises(uiautomator.UiDumpError) as info:
        uiautomator.parse_dump("")
    assert not info.value.transient


def test_truncated_xml_is_a_transient_error():
    with pytest.raises(uiautomator.UiDumpError) as info:
        uiautomator.parse_dump('<hierarchy rotation="0"><node bounds="[0,0][1,1]"></hierarchy>')
    assert info.value.transient


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("[0,0][1080,2400]", BoundingBox(0, 1080, 0, 2400)),
        ("[-5,10][20,-3]", BoundingBox(-5, 20, 10, -3)),
        ("", BoundingBox(0, 0, 0, 0)),
        (None, BoundingBox(0, 0, 0, 0)),
        ("garbage", BoundingBox(0, 0, 0, 0)),
    ],
)
def test_parse_bounds(value, expected):
    assert uiautomator.parse_bounds(value) == expected


def test_writer_round_trips_through_the_parser():
    nodes = [
        AccessibilityNode(0, BoundingBox(0, 1080, 0, 2400), class_name="F", child_ids=[1, 2]),
        AccessibilityNode(
            1,
            BoundingBox(10, 20, 30, 40),
            class_name="android.widget.EditText",
            text='a "b" & <c> é',
            hint_text="Name",
            view_id_resource_name="pkg:id/name",
            is_focused=True,
            is_clickable=True,
        ),
        AccessibilityNode(2, BoundingBox(0, 5, 0, 5), content_description="ok", is_enabled=False),
    ]
    dump = fake_dump.nodes_to_dump(nodes, rotation=0)
    assert "\n" not in dump and dump.startswith("<?xml")
    parsed = uiautomator.parse_dump(dump + "UI hierchary dumped to: /dev/tty\n")
    assert [p.child_ids for p in parsed] == [[1, 2], [], []]
    assert parsed[1].text == 'a "b" & <c> é'
    assert parsed[1].hint_text == "Name" and parsed[1].is_editable and parsed[1].is_focused
    assert parsed[2].content_description == "ok" and not parsed[2].is_enabled
    assert parsed[1].bounds_in_screen == BoundingBox(10, 20, 30, 40)
