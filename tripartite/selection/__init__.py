"""The paper's selection (section 2.2) in Cypher, cypher/selection/: run.py scores and
classifies the candidates, prompt.py lays out one object's prompt."""
from tripartite.selection.prompt import NoPrompt, build_prompt, prompt_material, tripartite_prompt
from tripartite.selection.run import SelectionReport, candidates, parameters, reclassify, select

__all__ = ["NoPrompt", "SelectionReport", "build_prompt", "candidates", "parameters", "prompt_material",
           "reclassify", "select", "tripartite_prompt"]
